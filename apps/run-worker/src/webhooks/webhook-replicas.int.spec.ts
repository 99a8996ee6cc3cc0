import { randomUUID } from 'node:crypto';
import { eventually } from '@wrs/testing';
import { events, typeOf, WebhookHarness } from './webhook-harness.testing';

/**
 * Three workers' intakes and senders on one events stream and one database, as replicas run: every
 * event becomes its deliveries once, every delivery is sent once (no retries are needed here, so a
 * second request with an id would be a double send), and each run's deliveries arrive in order.
 */
describe('webhook delivery with several worker replicas', () => {
  let h: WebhookHarness;
  beforeAll(async () => {
    h = await WebhookHarness.start({ allowPrivateTargets: true, maxAttempts: 1000 });
    h.startReplica({ allowPrivateTargets: true, maxAttempts: 1000 });
    h.startReplica({ allowPrivateTargets: true, maxAttempts: 1000 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('records each delivery once and sends it once, in order per run', async () => {
    const hook = await h.register('ws-replicas', `${h.receiver.origin}/replicas`, ['started', 'completed']);
    const runs = Array.from({ length: 20 }, () => randomUUID());
    await Promise.all(
      runs.map((runId) => h.append('ws-replicas', runId, events.created('ws-replicas', runId), events.started(), events.succeeded())),
    );
    await eventually(() => Promise.resolve(h.receivedAt('/replicas').length >= 40 ? true : undefined), 20_000, '40 deliveries');
    const deliveries = await eventually(async () => {
      const list = await h.deliveries('ws-replicas', hook.id);
      return list.length === 40 && list.every((d) => d.status === 'delivered') ? list : undefined;
    });
    expect(deliveries.every((d) => d.attempts === 1)).toBe(true);
    const received = h.receivedAt('/replicas');
    expect(received).toHaveLength(40);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(40);
    for (const runId of runs) {
      const ofRun = received.filter((r) => (JSON.parse(r.body) as { data: { runId: string } }).data.runId === runId).map(typeOf);
      expect([runId, ofRun]).toEqual([runId, ['run.started', 'run.completed']]);
    }
  });
});
