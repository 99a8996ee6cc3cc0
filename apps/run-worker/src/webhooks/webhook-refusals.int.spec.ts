import { randomUUID } from 'node:crypto';
import { webhookAttempts, webhookDeliveriesFailed } from '@wrs/observability';
import { eventually } from '@wrs/testing';
import { DeliveryRetention } from './delivery-retention';
import { events, typeOf, WebhookHarness } from './webhook-harness.testing';

/** A small retry budget: a delivery past it is marked failed, and the run's next delivery goes. */
describe('webhook delivery past its retry budget', () => {
  let h: WebhookHarness;
  beforeAll(async () => {
    h = await WebhookHarness.start({ allowPrivateTargets: true, maxAttempts: 3 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('marks the delivery failed after its attempts and delivers the next one of the run', async () => {
    const hook = await h.register('ws-budget', `${h.receiver.origin}/budget`, ['started', 'completed']);
    h.receiver.answer = (request) => (typeOf(request) === 'run.started' ? 500 : 'ok');
    const runId = randomUUID();
    await h.append('ws-budget', runId, events.created('ws-budget', runId), events.started(), events.succeeded());
    const list = await eventually(async () => {
      const deliveries = await h.deliveries('ws-budget', hook.id);
      return deliveries.length === 2 && deliveries.every((d) => d.status !== 'pending') ? deliveries : undefined;
    });
    expect(list.map((d) => [d.type, d.status, d.attempts, d.responseStatus, d.error, d.nextAttemptAt])).toEqual([
      ['run.completed', 'delivered', 1, 204, null, null],
      ['run.started', 'failed', 3, 500, 'status', null],
    ]);
    expect(h.receivedAt('/budget').map(typeOf)).toEqual(['run.started', 'run.started', 'run.started', 'run.completed']);
    const attempts = (await webhookAttempts.get()).values.map((v) => [v.labels['outcome'], v.value]);
    expect(attempts).toEqual(
      expect.arrayContaining([
        ['status', 3],
        ['delivered', 1],
      ]),
    );
    expect((await webhookDeliveriesFailed.get()).values[0]?.value).toBe(1);
  });
});

describe('webhook delivery retention', () => {
  let h: WebhookHarness;
  beforeAll(async () => {
    h = await WebhookHarness.start({ allowPrivateTargets: true, maxAttempts: 3 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('removes finished deliveries older than the retention, never a pending one', async () => {
    const hook = await h.register('ws-retention', 'https://hooks.example.com/never', ['completed']);
    // The worker's own retention pass at its start, late on a busy box, took the old rows first (a CI
    // saw 0 removed here): only the pass under test runs.
    await h.stopWorker();
    const row = (id: string, seq: number, status: string, daysAgo: number): Promise<unknown> =>
      h.db.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, run_id, seq, last_seq, type, payload, status, created_at, last_attempt_at, next_attempt_at)
         VALUES ($1, $2, 'ws-retention', 'run', $3, $3, 'run.completed', '{}', $4, now() - make_interval(days => $5), now() - make_interval(days => $5), now() + interval '1 day')`,
        [id, hook.id, seq, status, daysAgo],
      );
    await row('old-delivered', 1, 'delivered', 8);
    await row('old-failed', 2, 'failed', 8);
    await row('old-pending', 3, 'pending', 8);
    await row('recent-delivered', 4, 'delivered', 1);
    expect(await new DeliveryRetention(h.db, 60_000, () => undefined).prune()).toBe(2);
    expect((await h.deliveries('ws-retention', hook.id)).map((d) => d.id).sort()).toEqual(['old-pending', 'recent-delivered']);
  });
});

/**
 * Without the operator's setting, loopback, private and link-local targets are refused where the
 * connection is made: an address in the URL, and a name that resolves to one (localhost).
 */
describe('webhook targets in private ranges (SSRF)', () => {
  let h: WebhookHarness;
  beforeAll(async () => {
    h = await WebhookHarness.start({ allowPrivateTargets: false, maxAttempts: 1 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each([
    ['127.0.0.1', (port: number) => `https://127.0.0.1:${port}/ssrf`],
    ['::1', (port: number) => `https://[::1]:${port}/ssrf`],
    ['10.x', () => 'https://10.20.30.40/ssrf'],
    ['169.254.x', () => 'https://169.254.169.254/latest/meta-data'],
    ['::ffff:127.0.0.1', (port: number) => `https://[::ffff:127.0.0.1]:${port}/ssrf`],
    ['localhost (a name resolving to loopback)', (port: number) => `https://localhost:${port}/ssrf`],
  ])('refuses %s without connecting', async (_name, url) => {
    const workspaceId = `ws-ssrf-${randomUUID().slice(0, 8)}`;
    const hook = await h.register(workspaceId, url(h.receiver.port), ['completed']);
    const runId = randomUUID();
    await h.append(workspaceId, runId, events.created(workspaceId, runId), events.succeeded());
    const [delivery] = await eventually(async () => {
      const list = await h.deliveries(workspaceId, hook.id);
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery).toMatchObject({ attempts: 1, responseStatus: null, error: 'refused_target' });
    expect(h.receiver.received).toHaveLength(0);
  });
});
