import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { migrate } from '@wrs/persistence';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { isolatedEnvironment, readSse, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { RunEventStreams } from './feed/run-event-streams';
import { startTestRelay, type TestRelay } from './test-relay.testing';

const at = '2026-11-26T08:00:00.000Z';

/** A relay told to end its streams (SIGTERM's first step) still listens until Nest closes its server. */
describe('a relay ending its streams, against real JetStream over a real socket', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-end');
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let relay: TestRelay;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    nc = await connectNats(env.natsUrl, 'test');
    await ensureStreams(await jetstreamManager(nc), new StreamNames(env.namespace));
    relay = await startTestRelay(env, publicKeyFile, { SSE_MAX_DURATION_SECONDS: '60', SSE_HEARTBEAT_MS: '1000' });
  });

  afterAll(async () => {
    await relay?.close();
    await nc?.close();
    await env.cleanup();
  });

  it('ends a stream opened after it began ending them, as it ended the others: a 200 and its retry line, then the end', async () => {
    const runId = randomUUID();
    const created: RunEvent = {
      type: 'run.created',
      data: { runId, workspaceId: 'ws-end', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: runId, at },
    };
    const store = new RunEventStore(jetstream(nc), await jetstreamManager(nc), new StreamNames(env.namespace));
    await store.append('ws-end', runId, [created], 0, 'test');
    await relay.app.get(RunEventStreams).closeAll();
    const started = Date.now();
    const result = await readSse(`${relay.base}/runs/${runId}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 10_000 });
    expect(result.status).toBe(200);
    expect(result.text).toMatch(/^retry: \d+\n\n/);
    // Before, it stayed open until its maximum duration (60 s here), holding the relay's stop.
    expect(result.endedByServer).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
