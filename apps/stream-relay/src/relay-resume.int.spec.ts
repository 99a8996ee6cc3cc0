import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { migrate, openDatabase } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { contractOperations, isRelayOperation } from '@wrs/contracts';
import type { RunEvent } from '@wrs/domain';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import {
  apiFetch,
  contractValidator,
  expressRoutes,
  isolatedEnvironment,
  readSse,
  testSigningKey,
  testToken,
  type IsolatedEnvironment,
  type SseResult,
} from '@wrs/testing';
import type { RelayDependencies } from './relay-dependencies';
import { startTestRelay, type TestRelay } from './test-relay.testing';

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
  let app: NestExpressApplication;
  let deps: RelayDependencies;
  let relay: TestRelay;
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
    await migrate(env.database);
    nc = await connectNats(env.natsUrl, 'test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    const js = jetstream(nc);
    store = new RunEventStore(js, jsm, names);
    relay = await startTestRelay(env, publicKeyFile, {
      SSE_MAX_DURATION_SECONDS: '3',
      SSE_MAX_STREAMS_PER_WORKSPACE: '5',
      SSE_MAX_BUFFERED_BYTES: '65536',
      SSE_DRAIN_TIMEOUT_MS: '1000',
      SSE_HEARTBEAT_MS: '1000',
    });
    ({ app, deps, base } = relay);
  });

  afterAll(async () => {
    await relay.close();
    await nc.close();
    await env.cleanup();
  });

  it("answers exactly the contract's event-stream operation (no drift)", () => {
    const served = expressRoutes(app.getHttpAdapter().getInstance(), '/api/v1');
    expect(served).toEqual(
      contractOperations()
        .filter(isRelayOperation)
        .map((op) => `${op.method} ${op.template}`),
    );
  });

  // Before any test opens a stream: the relay's firehose is open from its start, not from its first stream.
  it('knows a run created after it started before anyone follows it, so its first streams read nothing', async () => {
    const runId = randomUUID();
    const [seq] = await appendAll(runId, finishedRun(runId, 'ws-a').slice(0, 1));
    const deadline = Date.now() + 3000;
    while ((await deps.feed.known('ws-a', runId)) === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await deps.feed.known('ws-a', runId))?.seq).toBe(seq);
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
    expect(full.headers.get('cache-control')).toBe('no-store');
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

  it("hides another workspace's run exactly like a missing one", async () => {
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

  /** What the worker would record of the run: each event projected at its sequence. */
  async function projectAll(runId: string, events: RunEvent[], seqs: number[]): Promise<void> {
    const db = await openDatabase(env.database);
    try {
      const projection = new RunProjection(db);
      for (const [i, e] of events.entries()) {
        await projection.project(runId, seqs[i]!, e);
      }
    } finally {
      await db.destroy();
    }
  }

  async function appendAll(runId: string, events: RunEvent[], ws = 'ws-a'): Promise<number[]> {
    let version = await store.version(ws, runId);
    const seqs: number[] = [];
    for (const [i, event] of events.entries()) {
      version = await store.append(ws, runId, [event], version, `a${seqs.length}-${i}`);
      seqs.push(version);
    }
    return seqs;
  }

  it('starts with a reset event carrying the current state when events after the id were removed', async () => {
    const runId = randomUUID();
    const events = finishedRun(runId, 'ws-a');
    const seqs = await appendAll(runId, events);
    // The projection knows the run (as the worker would have recorded it).
    await projectAll(runId, events, seqs);
    // A relay that did not see the run's events (another replica, or one started since): this one
    // forgets what its firehose remembers. (One that saw them serves them from memory: they were the
    // run's events, and memory holds only a run's latest few.)
    await deps.feed.close();
    // Retention removed all but the last two events of the run.
    const jsm = await jetstreamManager(nc);
    await jsm.streams.purge(new StreamNames(env.namespace).eventsStream, {
      filter: new StreamNames(env.namespace).runEvents('ws-a', runId),
      keep: 2,
    });
    const resumed = await follow(runId, { 'last-event-id': String(seqs[0]) });
    expect(resumed.events.map((e) => e.event)).toEqual(['reset', 'run.started', 'run.succeeded']);
    const reset = JSON.parse(resumed.events[0]!.data) as { data: { firstAvailableId: number; run: { state: string } } };
    contractValidator().assertSchema('RunReset', reset);
    expect(reset.data.firstAvailableId).toBe(seqs[2]);
    expect(reset.data.run.state).toBe('succeeded');
    expect(Number(resumed.events[0]!.id)).toBe(seqs[2]! - 1);
    // From the id the reset gave, the resume is exact again (no reset).
    const after = await follow(runId, { 'last-event-id': String(seqs[2]) });
    expect(after.events.map((e) => e.event)).toEqual(['run.succeeded']);
  });

  /** A run, projected, whose events were then all removed (retention, or a deletion cut short). */
  async function finishedRunWithEveryEventRemoved(finished = true): Promise<{ runId: string; seqs: number[] }> {
    const runId = randomUUID();
    const events = finishedRun(runId, 'ws-a').slice(0, finished ? 4 : 3);
    const seqs = await appendAll(runId, events);
    await projectAll(runId, events, seqs);
    await deps.feed.close(); // a relay that did not see the events (see above)
    const names = new StreamNames(env.namespace);
    await (await jetstreamManager(nc)).streams.purge(names.eventsStream, { filter: names.runEvents('ws-a', runId) });
    return { runId, seqs };
  }

  it('every event removed, a client that saw some of them: a reset with the state it ends in, not a silent stream', async () => {
    const { runId, seqs } = await finishedRunWithEveryEventRemoved();
    const resumed = await follow(runId, { 'last-event-id': String(seqs[1]) });
    expect(resumed.status).toBe(200);
    expect(resumed.events.map((e) => e.event)).toEqual(['reset']);
    const reset = JSON.parse(resumed.events[0]!.data) as { data: { firstAvailableId: number | null; run: { state: string } } };
    contractValidator().assertSchema('RunReset', reset);
    expect(reset.data).toMatchObject({ firstAvailableId: null, run: { state: 'succeeded' } });
  });

  it('every event of a running run removed: one reset whose id is where the client then stands, so its reconnect gets no other', async () => {
    const { runId, seqs } = await finishedRunWithEveryEventRemoved(false);
    const resumed = await follow(runId, { 'last-event-id': String(seqs[0]) });
    expect(resumed.events.map((e) => [e.event, e.id])).toEqual([['reset', String(seqs[2])]]);
    const reconnected = await follow(runId, { 'last-event-id': String(seqs[2]) });
    expect(reconnected.status).toBe(200);
    expect(reconnected.events).toEqual([]);
  });

  it('every event removed, a client that saw the end: 204, so EventSource stops', async () => {
    const { runId, seqs } = await finishedRunWithEveryEventRemoved();
    const done = await follow(runId, { 'last-event-id': String(seqs[3]) });
    assertContract(done);
    expect(done.status).toBe(204);
  });

  it('sends no reset when the run is created and projected between the stream opening and the gap check (chaos finding)', async () => {
    const runId = randomUUID();
    const events = finishedRun(runId, 'ws-a');
    const seqs = await appendAll(runId, events);
    await projectAll(runId, events, seqs);
    // The relay's read of the run's last event finds none; by the time it looks for the run's row,
    // the run's events have been appended and projected.
    const last = jest.spyOn(deps.feed, 'last').mockResolvedValueOnce(null);
    try {
      const result = await follow(runId);
      expect(result.events.map((e) => e.event)).toEqual(events.map((e) => e.type));
      expect(result.events.map((e) => Number(e.id))).toEqual(seqs);
    } finally {
      last.mockRestore();
    }
  });

  it('closes a stream at its maximum duration so the client resumes', async () => {
    const runId = randomUUID();
    await appendAll(runId, finishedRun(runId, 'ws-a').slice(0, 2));
    const started = Date.now();
    const result = await readSse(`${base}/runs/${runId}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 10_000 });
    expect(result.endedByServer).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(result.events).toHaveLength(2);
    expect(result.comments).toBeGreaterThanOrEqual(1);
  });

  it('refuses streams beyond the workspace limit with 429, and frees the place when one closes', async () => {
    const runId = randomUUID();
    await appendAll(runId, finishedRun(runId, 'ws-limit').slice(0, 1), 'ws-limit');
    const limited = testToken(key, 'ws-limit');
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const open = await Promise.all(
      controllers.map((c) =>
        apiFetch(`${base}/runs/${runId}/events`, { headers: { authorization: `Bearer ${limited}` }, signal: c.signal }),
      ),
    );
    expect(open.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await follow(runId, {}, limited);
    assertContract(refused);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'too_many_streams', retryable: true, params: { limit: 5 } });
    controllers[0]!.abort();
    await new Promise((r) => setTimeout(r, 200));
    const again = await readSse(`${base}/runs/${runId}/events`, { authorization: `Bearer ${limited}` }, { until: (e) => e.length > 0 });
    expect(again.status).toBe(200);
    controllers.slice(1).forEach((c) => c.abort());
  });

  it('disconnects a client that does not read instead of buffering for it', async () => {
    const runId = randomUUID();
    const events = finishedRun(runId, 'ws-a');
    // About 4 MB: more than loopback socket buffers absorb for a client that never reads.
    const logs: RunEvent[] = Array.from({ length: 1000 }, (_, index) => ({
      type: 'run.log',
      data: { index, stream: 'stdout', line: 'x'.repeat(4000), at },
    }));
    await appendAll(runId, [...events.slice(0, 3), ...logs, events[3]!]);
    const { port, hostname } = new URL(base);
    // A client with a small receive window that reads nothing for 4 s, then drains what it can: if the
    // relay cut it off, the stream ends without the terminal event; had it buffered, all would arrive.
    // (Python, because Node cannot shrink a socket's receive buffer.)
    const client = `
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect((sys.argv[1], int(sys.argv[2])))
s.sendall(("GET /api/v1/runs/%s/events HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer %s\\r\\n\\r\\n" % (sys.argv[3], sys.argv[4])).encode())
time.sleep(4)
s.settimeout(10)
data = b""
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
except Exception as e:
    data += b"(still open)"
sys.stdout.write(data.decode("utf-8", "replace"))
`;
    const { stdout: received } = await promisify(execFile)('python3', ['-c', client, hostname, port, runId, token], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(received).toContain('event: run.created');
    expect(received).not.toContain('event: run.succeeded');
    expect(received).not.toContain('(still open)');
  });
});
