import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfig, RelayEnv } from '@wrs/config';
import { contractOperations, isRelayOperation } from '@wrs/contracts';
import type { RunEvent } from '@wrs/domain';
import { connectNats, ensureStreams, RunCommandBus, RunEventStore, StreamNames } from '@wrs/messaging';
import {
  contractValidator,
  expressRoutes,
  isolatedEnvironment,
  readSse,
  TEST_AUDIENCE,
  TEST_ISSUER,
  testSigningKey,
  testToken,
  type IsolatedEnvironment,
  type SseResult,
} from '@wrs/testing';
import { createRelayApp } from './relay-app';
import { connectRelayDependencies, type RelayDependencies } from './relay-dependencies';

const at = '2026-11-21T10:00:00.000Z';
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

function finishedRun(runId: string, workspaceId: string): RunEvent[] {
  return [
    {
      type: 'run.created',
      data: { runId, workspaceId, workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at },
    },
    { type: 'run.dispatched', data: { placement, at } },
    { type: 'run.started', data: { at } },
    { type: 'run.succeeded', data: { exitCode: 0, at } },
  ];
}

describe('stream-relay resume, against real JetStream over a real socket', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-a');
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RunEventStore;
  let commands: RunCommandBus;
  let app: NestExpressApplication;
  let deps: RelayDependencies;
  let base: string;

  const follow = (runId: string, headers: Record<string, string> = {}, t = token): Promise<SseResult> =>
    readSse(`${base}/runs/${runId}/events`, { authorization: `Bearer ${t}`, ...headers }, { timeoutMs: 5000 });

  /** The contract's word on a relay answer that is not a stream. */
  const assertContract = (result: SseResult): void =>
    contractValidator().assertResponse('GET', '/runs/{runId}/events', {
      status: result.status,
      headers: result.headers,
      text: result.headers.get('content-type')?.startsWith('text/event-stream') ? '' : result.text,
      body: result.text && !result.headers.get('content-type')?.startsWith('text/event-stream') ? JSON.parse(result.text) : undefined,
    });

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    const js = jetstream(nc);
    store = new RunEventStore(js, jsm, names);
    commands = new RunCommandBus(js, jsm, names);
    deps = await connectRelayDependencies(
      loadConfig(RelayEnv, {
        NATS_URL: env.natsUrl,
        REDIS_URL: env.redisUrl,
        NAMESPACE: env.namespace,
        AUTH_PUBLIC_KEY_FILE: publicKeyFile,
        AUTH_ISSUER: TEST_ISSUER,
        AUTH_AUDIENCE: TEST_AUDIENCE,
        SSE_HEARTBEAT_MS: '1000',
      }),
    );
    app = await createRelayApp(deps.module);
    await app.listen(0, '127.0.0.1');
    base = `${await app.getUrl()}/api/v1`;
  });

  afterAll(async () => {
    await app.close();
    await deps.close();
    await nc.close();
    await env.cleanup();
  });

  it('answers exactly the contract\'s event-stream operation (no drift)', () => {
    const served = expressRoutes(app.getHttpAdapter().getInstance(), '/api/v1');
    expect(served).toEqual(contractOperations().filter(isRelayOperation).map((op) => `${op.method} ${op.template}`));
  });

  it('resumes from every event id of a finished run with exactly the tail', async () => {
    const runId = randomUUID();
    const events = finishedRun(runId, 'ws-a');
    let version = 0;
    const seqs: number[] = [];
    // Another run's event interleaved on the stream: it must never leak into this run's stream.
    const other = randomUUID();
    let otherSeq = 0;
    for (const event of events) {
      version = await store.append('ws-a', runId, [event], version, `e${seqs.length}`);
      seqs.push(version);
      if (seqs.length === 1) {
        otherSeq = await store.append('ws-a', other, finishedRun(other, 'ws-a').slice(0, 1), 0, 'o');
      }
    }

    const full = await follow(runId);
    assertContract(full);
    expect(full.status).toBe(200);
    expect(full.headers.get('cache-control')).toBe('no-cache');
    expect(full.endedByServer).toBe(true);
    expect(full.events.map((e) => Number(e.id))).toEqual(seqs);
    expect(full.events.map((e) => e.event)).toEqual(events.map((e) => e.type));
    expect(JSON.parse(full.events[0]!.data)).toMatchObject({ type: 'run.created', runId, workspaceId: 'ws-a', time: at });
    for (const e of full.events) {
      contractValidator().assertSchema('RunEvent', JSON.parse(e.data));
    }

    for (const [index, seq] of seqs.slice(0, -1).entries()) {
      const resumed = await follow(runId, { 'last-event-id': String(seq) });
      expect(resumed.events.map((e) => Number(e.id))).toEqual(seqs.slice(index + 1));
    }
    // An id between two of the run's events (another run's sequence) resumes just as exactly.
    expect(otherSeq).toBeGreaterThan(seqs[0]!);
    expect(otherSeq).toBeLessThan(seqs[1]!);
    const between = await follow(runId, { 'last-event-id': String(otherSeq) });
    expect(between.events.map((e) => Number(e.id))).toEqual(seqs.slice(1));
  });

  it('answers 204 to a reconnect after the terminal event, so EventSource stops', async () => {
    const runId = randomUUID();
    let version = 0;
    for (const [i, event] of finishedRun(runId, 'ws-a').entries()) {
      version = await store.append('ws-a', runId, [event], version, `t${i}`);
    }
    const done = await follow(runId, { 'last-event-id': String(version) });
    assertContract(done);
    expect(done.status).toBe(204);
  });

  it('accepts the lastEventId query parameter for a browser first connection', async () => {
    const runId = randomUUID();
    let version = 0;
    const seqs: number[] = [];
    for (const [i, event] of finishedRun(runId, 'ws-a').entries()) {
      version = await store.append('ws-a', runId, [event], version, `q${i}`);
      seqs.push(version);
    }
    const resumed = await readSse(`${base}/runs/${runId}/events?lastEventId=${seqs[1]}`, { authorization: `Bearer ${token}` });
    expect(resumed.events.map((e) => Number(e.id))).toEqual(seqs.slice(2));
  });

  it('streams a live run as its events are appended', async () => {
    const runId = randomUUID();
    const events = finishedRun(runId, 'ws-a');
    let version = await store.append('ws-a', runId, [events[0]!], 0, 'l0');
    const reading = follow(runId);
    for (const [i, event] of events.slice(1).entries()) {
      await new Promise((r) => setTimeout(r, 50));
      version = await store.append('ws-a', runId, [event], version, `l${i + 1}`);
    }
    const result = await reading;
    expect(result.events.map((e) => e.event)).toEqual(events.map((e) => e.type));
  });

  it('follows a run that is accepted but has no event yet (read-your-writes)', async () => {
    const runId = randomUUID();
    await commands.publishCreate({
      type: 'CreateRun', runId, workspaceId: 'ws-a', workload: { image: 'busybox' }, provider: 'auto', region: 'auto',
      idempotencyKey: 'k', now: at, requestId: 'r',
    });
    const pending = await readSse(`${base}/runs/${runId}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 1500 });
    expect(pending.status).toBe(200);
    expect(pending.events).toEqual([]);
    expect(pending.endedByServer).toBe(false);
  });

  it('hides another workspace\'s run exactly like a missing one', async () => {
    const runId = randomUUID();
    await store.append('ws-a', runId, finishedRun(runId, 'ws-a').slice(0, 1), 0, 'x');
    const foreign = await follow(runId, {}, testToken(key, 'ws-b'));
    const missing = await follow(randomUUID(), {}, testToken(key, 'ws-b'));
    assertContract(foreign);
    expect(foreign.status).toBe(404);
    const strip = (r: SseResult): unknown => ({ ...JSON.parse(r.text), requestId: undefined });
    expect(strip(foreign)).toEqual(strip(missing));
  });

  it.each(['-1', 'abc', '1.5', '1e3'])('refuses Last-Event-ID %j with a 400 problem', async (bad) => {
    const result = await follow(randomUUID(), { 'last-event-id': bad });
    assertContract(result);
    expect(result.status).toBe(400);
    expect(JSON.parse(result.text)).toMatchObject({ code: 'invalid_last_event_id' });
  });

  it('refuses a request without a token', async () => {
    const result = await readSse(`${base}/runs/${randomUUID()}/events`, {});
    assertContract(result);
    expect(result.status).toBe(401);
    expect(JSON.parse(result.text)).toMatchObject({ code: 'token_missing', retryable: false });
  });
});
