import { randomUUID } from 'node:crypto';
import { eventually, verifyStandardWebhook, type ReceivedWebhook, type ReceiverAnswer } from '@wrs/testing';
import { events, typeOf, WebhookHarness } from './webhook-harness.testing';

/**
 * Webhook delivery over real sockets: JetStream events in, signed HTTPS requests out to a real receiver
 * on loopback (allowed here) that fails, hangs, redirects and recovers as each test tells it to.
 */
describe('webhook delivery', () => {
  let h: WebhookHarness;
  /** Answers by path; a path's function sees the requests to it so far (this one included). */
  const answers = new Map<string, (seen: ReceivedWebhook[], request: ReceivedWebhook) => ReceiverAnswer>();

  beforeAll(async () => {
    h = await WebhookHarness.start({ allowPrivateTargets: true, maxAttempts: 1000 });
    h.receiver.answer = (request) => answers.get(request.path)?.(h.receivedAt(request.path), request) ?? 'ok';
  });
  afterAll(async () => {
    await h?.close();
  });

  it('delivers started and completed, signed as Standard Webhooks says, each with its own id', async () => {
    const hook = await h.register('ws-sign', `${h.receiver.origin}/sign`, ['started', 'completed']);
    const runId = randomUUID();
    await h.append('ws-sign', runId, events.created('ws-sign', runId), events.started(), events.log(0), events.succeeded());
    const received = await eventually(
      () => Promise.resolve(h.receivedAt('/sign').length >= 2 ? h.receivedAt('/sign') : undefined),
      10_000,
      'two deliveries',
    );
    expect(received.map(typeOf)).toEqual(['run.started', 'run.completed']);
    expect(received.every((r) => verifyStandardWebhook(hook.secret, r))).toBe(true);
    expect(verifyStandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, received[0]!)).toBe(false);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(2);
    expect(JSON.parse(received[1]!.body)).toMatchObject({
      type: 'run.completed',
      data: { runId, workspaceId: 'ws-sign', state: 'succeeded' },
    });
    const deliveries = await eventually(async () => {
      const list = await h.deliveries('ws-sign', hook.id);
      return list.every((d) => d.status === 'delivered') && list.length === 2 ? list : undefined;
    });
    expect(deliveries.map((d) => [d.type, d.attempts, d.responseStatus, d.nextAttemptAt])).toEqual([
      ['run.completed', 1, 204, null],
      ['run.started', 1, 204, null],
    ]);
  });

  it('signs with the new secret and, for the grace period after a rotation, with the previous one too', async () => {
    const hook = await h.register('ws-rotate', `${h.receiver.origin}/rotate`, ['completed']);
    const secret = await h.rotate('ws-rotate', hook.id);
    const runId = randomUUID();
    await h.append('ws-rotate', runId, events.created('ws-rotate', runId), events.succeeded());
    const [received] = await eventually(() => Promise.resolve(h.receivedAt('/rotate').length > 0 ? h.receivedAt('/rotate') : undefined));
    expect(String(received!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([verifyStandardWebhook(secret, received!), verifyStandardWebhook(hook.secret, received!)]).toEqual([true, true]);
  });

  it('retries after a 500 and after a time-out with the same webhook-id and body, then records the success', async () => {
    const hook = await h.register('ws-retry', `${h.receiver.origin}/retry`, ['completed']);
    answers.set('/retry', (seen) => (seen.length === 1 ? 500 : seen.length === 2 ? 'hang' : 'ok'));
    const runId = randomUUID();
    await h.append('ws-retry', runId, events.created('ws-retry', runId), events.succeeded());
    const [delivery] = await eventually(async () => {
      const list = await h.deliveries('ws-retry', hook.id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    const received = h.receivedAt('/retry');
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery!.id]));
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    expect(received.every((r) => verifyStandardWebhook(hook.secret, r))).toBe(true);
    expect(delivery).toMatchObject({ attempts: 3, responseStatus: 204, error: null });
  });

  it("keeps a run's order at a failing endpoint, coalescing its log lines, while another endpoint gets everything", async () => {
    const failing = await h.register('ws-order', `${h.receiver.origin}/failing`, ['started', 'logs', 'completed']);
    await h.register('ws-order', `${h.receiver.origin}/healthy`, ['started', 'logs', 'completed']);
    let released = false;
    answers.set('/failing', () => (released ? 'ok' : 503));
    const runId = randomUUID();
    await h.append('ws-order', runId, events.created('ws-order', runId), events.started());
    await eventually(
      () => Promise.resolve(h.receivedAt('/failing').length >= 2 ? true : undefined),
      10_000,
      'the failing endpoint to be retried',
    );
    await h.append('ws-order', runId, events.log(0), events.log(1), events.log(2), events.succeeded());
    const healthy = await eventually(() =>
      Promise.resolve(h.receivedAt('/healthy').some((r) => typeOf(r) === 'run.completed') ? h.receivedAt('/healthy') : undefined),
    );
    expect(healthy.map(typeOf)[0]).toBe('run.started');
    expect(healthy.map(typeOf).at(-1)).toBe('run.completed');
    const healthyLines = healthy
      .filter((r) => typeOf(r) === 'run.logs')
      .flatMap((r) => (JSON.parse(r.body) as { data: { lines: { line: string }[] } }).data.lines.map((l) => l.line));
    expect(healthyLines).toEqual(['line 0', 'line 1', 'line 2']);
    // The failing endpoint has seen nothing but its first delivery, however often retried.
    expect(new Set(h.receivedAt('/failing').map(typeOf))).toEqual(new Set(['run.started']));
    released = true;
    const distinct = await eventually(() => {
      const ids = [...new Map(h.receivedAt('/failing').map((r) => [r.headers['webhook-id'], r])).values()];
      return Promise.resolve(ids.some((r) => typeOf(r) === 'run.completed') ? ids : undefined);
    });
    expect(distinct.map(typeOf)).toEqual(['run.started', 'run.logs', 'run.completed']);
    const lines = (JSON.parse(distinct[1]!.body) as { data: { lines: { line: string }[] } }).data.lines.map((l) => l.line);
    expect(lines).toEqual(['line 0', 'line 1', 'line 2']);
    // The sender records a success after the receiver has answered: wait for the record.
    const statuses = await eventually(async () => {
      const recorded = (await h.deliveries('ws-order', failing.id)).map((d) => d.status);
      return recorded.every((status) => status === 'delivered') ? recorded : undefined;
    });
    expect(statuses).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('never follows a redirect: the attempt fails with the 302 recorded', async () => {
    const hook = await h.register('ws-redirect', `${h.receiver.origin}/redirect`, ['completed']);
    answers.set('/redirect', () => 'redirect');
    const runId = randomUUID();
    await h.append('ws-redirect', runId, events.created('ws-redirect', runId), events.succeeded());
    const [delivery] = await eventually(async () => {
      const list = await h.deliveries('ws-redirect', hook.id);
      return (list[0]?.attempts ?? 0) >= 2 ? list : undefined;
    });
    expect(delivery).toMatchObject({ status: 'pending', responseStatus: 302, error: 'redirect' });
    expect(delivery!.nextAttemptAt).not.toBeNull();
    expect(h.receivedAt('/elsewhere')).toHaveLength(0);
    await h.webhooks.remove('ws-redirect', hook.id);
  });

  it('reads a bounded part of an answer: an endless 200 body still counts as delivered', async () => {
    const hook = await h.register('ws-endless', `${h.receiver.origin}/endless`, ['completed']);
    answers.set('/endless', () => 'endless');
    const runId = randomUUID();
    await h.append('ws-endless', runId, events.created('ws-endless', runId), events.succeeded());
    const [delivery] = await eventually(async () => {
      const list = await h.deliveries('ws-endless', hook.id);
      return (list[0]?.attempts ?? 0) >= 1 ? list : undefined;
    });
    // Read to its end, the body would have run into the 1 s time-out and failed as `timeout`.
    expect(delivery).toMatchObject({ status: 'delivered', responseStatus: 200, attempts: 1 });
  });
});
