import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { connectNats, decodeRunEvent, RunEventStore, StreamNames } from '@wrs/messaging';
import { metricsRegistry } from '@wrs/observability';
import { migrate } from '@wrs/persistence';
import { eventually, isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from '../in-process-api.testing';

const at = '2026-11-25T09:00:00.000Z';
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };
const toTheEnd: RunEvent[] = [
  { type: 'run.dispatched', data: { placement, at } },
  { type: 'run.started', data: { at } },
  { type: 'run.succeeded', data: { exitCode: 0, at } },
];

/**
 * No run-worker here: the test ends runs by appending their events as a worker would, so when a run
 * ends is the test's choice. Every answer is checked against the contract by the client.
 */
describe('Prefer: wait on POST /runs and GET /runs/{id}', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-wait');
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let names: StreamNames;
  let store: RunEventStore;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile);
    await api.deps.module.workspaces.ensure('ws-wait', 'Wait');
    nc = await connectNats(env.natsUrl, 'prefer-wait-test');
    jsm = await jetstreamManager(nc);
    names = new StreamNames(env.namespace);
    store = new RunEventStore(jetstream(nc), jsm, names);
  });

  afterAll(async () => {
    await nc.close();
    await api.close();
    await env.cleanup();
  });

  const create = (prefer?: string) =>
    api.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID(), ...(prefer ? { prefer } : {}) },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
  const get = (runId: string, prefer?: string) =>
    api.client.call('GET /runs/{runId}', `/runs/${runId}`, { token, headers: prefer ? { prefer } : {} });
  const finish = async (runId: string): Promise<void> => {
    await store.append('ws-wait', runId, toTheEnd, await store.version('ws-wait', runId), randomUUID());
  };
  const idOf = (body: unknown): string => (body as { id: string }).id;

  it('GET answers once the run ends, with the terminal run and Preference-Applied', async () => {
    const runId = idOf((await create()).body);
    const asked = Date.now();
    const waiting = get(runId, 'wait=25');
    await waitUntil(() => api.deps.module.endings.waiting === 1);
    await finish(runId);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.headers.get('preference-applied')).toBe('wait=25');
    expect(res.body).toMatchObject({ id: runId, state: 'succeeded', terminal: true });
    // Woken by the end, not by the 25 s deadline.
    expect(Date.now() - asked).toBeLessThan(20_000);
  });

  it('counts the requests waiting in the wrs_run_waits_active gauge, and each that answers leaves it', async () => {
    const before = await scrapedWaits();
    const runId = idOf((await create()).body);
    const waiting = [get(runId, 'wait=25'), get(runId, 'wait=25')];
    await waitUntil(() => api.deps.module.endings.waiting === 2);
    expect(await scrapedWaits()).toBe(before + 2);
    await finish(runId);
    expect((await Promise.all(waiting)).map((res) => res.status)).toEqual([200, 200]);
    expect(await scrapedWaits()).toBe(before);
  });

  it('GET answers after N seconds with the run as it is when the run does not end', async () => {
    const runId = idOf((await create()).body);
    const asked = Date.now();
    const res = await get(runId, 'wait=1');
    expect(Date.now() - asked).toBeGreaterThanOrEqual(900); // it did wait (the ticker may end it a little early)
    expect(res.status).toBe(200);
    expect(res.headers.get('preference-applied')).toBe('wait=1');
    expect(res.body).toMatchObject({ id: runId, state: 'queued', terminal: false });
  });

  it('after N seconds the answer is the run as it is then, not as it was when the wait began', async () => {
    const runId = idOf((await create()).body);
    const waiting = get(runId, 'wait=2');
    await waitUntil(() => api.deps.module.endings.waiting === 1);
    await store.append('ws-wait', runId, toTheEnd.slice(0, 2), await store.version('ws-wait', runId), randomUUID());
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: runId, state: 'running', terminal: false });
  });

  it('POST with Prefer: wait answers 201 with the finished run when it ends within N', async () => {
    // Plays the worker: ends each run of this workspace as soon as its first event is published.
    const sub = nc.subscribe(`${env.namespace}.evt.ws-wait.*`, {
      callback: (_error, message) => {
        if (decodeRunEvent(message.data).event.type === 'run.created') {
          void finish(message.subject.split('.').at(-1)!);
        }
      },
    });
    try {
      const res = await create('wait=25');
      expect(res.status).toBe(201);
      expect(res.headers.get('preference-applied')).toBe('wait=25');
      expect(res.headers.get('location')).toBe(`/api/v1/runs/${idOf(res.body)}`);
      expect(res.body).toMatchObject({ state: 'succeeded', terminal: true });
    } finally {
      sub.unsubscribe();
    }
  });

  it('a finished run is answered at once; without Prefer nothing waits and nothing is applied', async () => {
    const runId = idOf((await create()).body);
    await finish(runId);
    const waited = await get(runId, 'wait=25');
    expect(waited.body).toMatchObject({ state: 'succeeded' });
    expect(waited.headers.get('preference-applied')).toBe('wait=25');
    const plain = await get(runId);
    expect(plain.headers.get('preference-applied')).toBeNull();
  });

  it('waiting requests open no JetStream consumer and are dropped when their client goes away', async () => {
    const consumersBefore = (await jsm.streams.info(names.eventsStream)).state.consumer_count;
    const runIds = await Promise.all(Array.from({ length: 10 }, async () => idOf((await create()).body)));
    const controllers = runIds.map(() => new AbortController());
    const waits = runIds.map((runId, i) =>
      fetch(`${api.url}/runs/${runId}`, {
        headers: { authorization: `Bearer ${token}`, prefer: 'wait=25' },
        signal: controllers[i]!.signal,
      }).catch(() => null),
    );
    const endings = api.deps.module.endings;
    await waitUntil(() => endings.waiting === 10);
    // Reads of runs' events open short-lived ordered consumers that come and go, so the count moves a
    // little; a consumer per waiting request would add ten.
    expect((await jsm.streams.info(names.eventsStream)).state.consumer_count).toBeLessThan(consumersBefore + runIds.length);
    const gaugeWhileWaiting = await scrapedWaits();
    controllers.forEach((c) => c.abort());
    await Promise.all(waits);
    await waitUntil(() => endings.waiting === 0);
    // A wait whose client left leaves the gauge as one that was answered does.
    await eventually(async () => (await scrapedWaits()) === gaugeWhileWaiting - runIds.length || undefined, 10_000, 'the gauge to drop');
  });
});

/** The gauge as the api's /metrics shows it (the process's registry, in Prometheus's text format). */
async function scrapedWaits(): Promise<number> {
  const text = await metricsRegistry.metrics();
  const value = /^wrs_run_waits_active(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
  expect(value).toBeDefined();
  return Number(value);
}

/** `eventually` for a synchronous condition (it throws when the condition never holds). */
async function waitUntil(condition: () => boolean): Promise<void> {
  await eventually(() => Promise.resolve(condition() || undefined), 10_000, 'the waits to register');
}
