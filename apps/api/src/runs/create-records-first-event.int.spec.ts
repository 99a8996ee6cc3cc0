import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import type { NatsConnection } from '@nats-io/nats-core';
import { startApi, type InProcessApi } from '../in-process-api.testing';

interface RunBody {
  id: string;
  state: string;
  version: number;
  workload: { image: string };
}

/**
 * No run-worker runs here: whatever a client sees of a new run, the api put there itself. The create
 * appends the run's first event before it answers, so the run's event stream and GET have it at once.
 */
describe("POST /runs records the run's first event before answering", () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-first');
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let nc: NatsConnection;
  let store: RunEventStore;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile);
    await api.deps.module.workspaces.ensure('ws-first', 'First event');
    nc = await connectNats(env.natsUrl, 'first-event-test');
    const names = new StreamNames(env.namespace);
    store = new RunEventStore(jetstream(nc), await jetstreamManager(nc), names);
  });

  afterAll(async () => {
    await nc.close();
    await api.close();
    await env.cleanup();
  });

  const create = (idempotencyKey: string, image = 'busybox') =>
    api.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': idempotencyKey },
      body: { workload: { image }, provider: 'auto', region: 'auto' },
    });

  it("a read naming the run's ETag in If-None-Match still answers with the run: the ETag names its state, not its log lines", async () => {
    const run = (await create(randomUUID())).body as RunBody;
    const first = await api.client.call('GET /runs/{runId}', `/runs/${run.id}`, { token });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9]+"$/);
    // An explicit Cache-Control, or fetch adds no-cache, and Express's freshness check would not be tried.
    const again = await api.client.call('GET /runs/{runId}', `/runs/${run.id}`, {
      token,
      headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' },
    });
    expect([again.status, (again.body as RunBody | undefined)?.id]).toEqual([200, run.id]);
  });

  it('the answered run has exactly one run.created event in JetStream, and GET reads it at that version', async () => {
    const created = await create(randomUUID());
    expect(created.status).toBe(201);
    const run = created.body as RunBody;
    const { events, version } = await store.read('ws-first', run.id);
    expect(events.map((e) => e.event.type)).toEqual(['run.created']);
    expect(events[0]?.event).toMatchObject({ data: { runId: run.id, workspaceId: 'ws-first', workload: { image: 'busybox' } } });

    const got = await api.client.call('GET /runs/{runId}', `/runs/${run.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...run, version });
    expect(got.headers.get('etag')).toBe(`"${version}"`);
  });

  it('a retry with the same key appends nothing and answers the first answer', async () => {
    const idempotencyKey = randomUUID();
    const first = await create(idempotencyKey);
    const retry = await create(idempotencyKey);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    const { events } = await store.read('ws-first', (first.body as RunBody).id);
    expect(events).toHaveLength(1);
  });
});
