import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { connectNats, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from '../in-process-api.testing';

interface RunBody {
  id: string;
  state: string;
  terminal: boolean;
  version: number;
}

const at = '2026-11-25T08:00:00.000Z';
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };
const log = (index: number): RunEvent => ({ type: 'run.log', data: { index, stream: 'stdout', line: `line ${index}`, at } });

/**
 * No run-worker runs here: every cancel is decided by the api itself, on the run's events in JetStream
 * (which this test appends as a worker would), and answered with the run after the decision.
 */
describe('POST /runs/{id}:cancel is decided by the api, If-Match against the last state change', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-cancel');
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let nc: NatsConnection;
  let store: RunEventStore;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile);
    await api.deps.module.workspaces.ensure('ws-cancel', 'Cancel');
    nc = await connectNats(env.natsUrl, 'cancel-test');
    store = new RunEventStore(jetstream(nc), await jetstreamManager(nc), new StreamNames(env.namespace));
  });

  afterAll(async () => {
    await nc.close();
    await api.close();
    await env.cleanup();
  });

  const create = async (): Promise<RunBody> => {
    const res = await api.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return res.body as RunBody;
  };
  /** Appends as the worker does: after the run's last event. */
  const append = async (runId: string, events: RunEvent[]): Promise<number> =>
    store.append('ws-cancel', runId, events, await store.version('ws-cancel', runId), randomUUID());
  const get = (runId: string) => api.client.call('GET /runs/{runId}', `/runs/${runId}`, { token });
  const cancel = (runId: string, ifMatch?: string, t = token) =>
    api.client.call('POST /runs/{runId}:cancel', `/runs/${runId}:cancel`, { token: t, headers: ifMatch ? { 'if-match': ifMatch } : {} });
  const running = async (): Promise<{ id: string; startedAt: number }> => {
    const { id } = await create();
    await append(id, [{ type: 'run.dispatched', data: { placement, at } }]);
    return { id, startedAt: await append(id, [{ type: 'run.started', data: { at } }]) };
  };

  it('a cancel with a body is refused (the contract says none): the run is not canceled', async () => {
    const { id } = await create();
    const res = await api.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, { token, body: { reason: 'x' } });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    expect((await store.read('ws-cancel', id)).events.map((e) => e.event.type)).toEqual(['run.created']);
  });

  it("a queued run is canceled at once: the 202 says canceled, and the event is in the run's stream", async () => {
    const { id } = await create();
    const etag = (await get(id)).headers.get('etag')!;
    const res = await cancel(id, etag);
    expect(res.status).toBe(202);
    const { events, version } = await store.read('ws-cancel', id);
    expect(events.map((e) => e.event.type)).toEqual(['run.created', 'run.canceled']);
    expect(res.body).toMatchObject({ id, state: 'canceled', terminal: true, version });
  });

  it('a running run cancelled with the ETag of a GET made before any number of log lines: 202 canceling', async () => {
    const { id, startedAt } = await running();
    const before = await get(id);
    expect(before.headers.get('etag')).toBe(`"${startedAt}"`);
    for (let i = 0; i < 5; i++) {
      await append(id, [log(i)]);
    }
    // Log lines move neither the run's version nor its ETag.
    const after = await get(id);
    expect(after.headers.get('etag')).toBe(`"${startedAt}"`);
    expect(after.body).toMatchObject({ version: startedAt, logLines: 5 });
    const res = await cancel(id, before.headers.get('etag')!);
    expect(res.status).toBe(202);
    const { events, version } = await store.read('ws-cancel', id);
    expect(events.at(-1)?.event.type).toBe('run.cancel_requested');
    expect(res.body).toMatchObject({ id, state: 'canceling', terminal: false, version, cancellation: { requestedBy: 'test-user' } });
  });

  it('a cancel with an ETag from before a state change (the run finished) is 409 with the current version, and changes nothing', async () => {
    const { id, startedAt } = await running();
    const etag = (await get(id)).headers.get('etag')!;
    const finished = await append(id, [{ type: 'run.succeeded', data: { exitCode: 0, at } }]);
    const stale = await cancel(id, etag);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', params: { currentVersion: finished } });
    expect(finished).toBeGreaterThan(startedAt);
    // With the current ETag the cancel is accepted and, the run being over, changes nothing.
    const current = await cancel(id, `"${finished}"`);
    expect(current.status).toBe(202);
    expect(current.body).toMatchObject({ state: 'succeeded', terminal: true, version: finished });
    expect((await store.read('ws-cancel', id)).version).toBe(finished);
  });

  it('a cancel repeated with the same If-Match (a retry whose 202 was lost) answers 202 with the run as it is, not 409', async () => {
    const { id, startedAt } = await running();
    const first = await cancel(id, `"${startedAt}"`);
    expect(first.body).toMatchObject({ state: 'canceling' });
    const retry = await cancel(id, `"${startedAt}"`);
    expect(retry.status).toBe(202);
    expect(retry.body).toEqual(first.body);
  });

  it('cancelling a canceling run again changes nothing and answers it as it is', async () => {
    const { id } = await running();
    const first = await cancel(id);
    const again = await cancel(id);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
  });

  it("another workspace's run, with or without If-Match, is 404 exactly like a missing one", async () => {
    const { id } = await running();
    const other = testToken(key, 'ws-elsewhere');
    await api.deps.module.workspaces.ensure('ws-elsewhere', 'Elsewhere');
    const foreign = await cancel(id, '"1"', other);
    const missing = await cancel(randomUUID(), '"1"', other);
    expect(foreign.status).toBe(404);
    expect({ ...(foreign.body as object), requestId: undefined }).toEqual({ ...(missing.body as object), requestId: undefined });
    expect((await store.read('ws-cancel', id)).events.at(-1)?.event.type).toBe('run.started');
  });
});
