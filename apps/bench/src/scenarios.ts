import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { PREVIOUS_EVENT_HEADER } from '@wrs/messaging';
import { Client } from 'pg';
import type { CpuUsage } from './cpu-usage';
import { perRun } from './cpu-per-run';
import { againstFloor } from './floor/floor-scenario';
import { loadWithCpu, type HttpLoad } from './http-load';
import { firstEvent, postJson } from './light-http';
import { percentile, round } from './stats';
import { atLeast, atMost, below, type Target } from './target';

export interface Figure {
  readonly scenario: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: { readonly what: string; readonly value: number };
  readonly ratio?: number;
  readonly target?: Target;
}

/** The api process and the floor's matching load, to set a create or read against the framework floor. */
export interface FloorComparison {
  readonly apiPid: number;
  readonly floor: HttpLoad;
}

export const CREATE_BODY = JSON.stringify({ workload: { image: 'busybox', env: { SIM_DURATION_MS: '50' } }, provider: 'auto', region: 'auto' });

/**
 * POST /runs at 64 connections against raw JetStream publishes of the same bytes, same settings; with
 * `compare`, also against the framework floor. Only the run with `compare` carries the targets.
 */
export async function createThroughput(baseUrl: string, token: string, natsUrl: string, seconds: number, via = 'straight to the api', compare?: FloorComparison): Promise<Figure[]> {
  const load = await loadWithCpu(
    {
      url: `${baseUrl}/runs`,
      connections: 64,
      duration: seconds,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() }, body: CREATE_BODY }) }],
    },
    compare?.apiPid ?? process.pid,
  );
  const { result, rate } = load;
  const raw = await rawPublishRate(natsUrl, seconds);
  const judged = compare !== undefined;
  return [
    { scenario: 'create', metric: `POST /runs throughput (64 connections, ${via})`, value: round(rate), unit: 'req/s', baseline: { what: 'raw JetStream publish, 64 in flight', value: round(raw) }, ratio: round(rate / raw, 3), ...(judged ? { target: atLeast(0.15, 'ratio') } : {}) },
    { scenario: 'create', metric: `POST /runs latency p50 (${via})`, value: result.latency.p50, unit: 'ms' },
    { scenario: 'create', metric: `POST /runs latency p99 (${via})`, value: result.latency.p99, unit: 'ms', ...(judged ? { target: below(100) } : {}) },
    { scenario: 'create', metric: `non-2xx answers (${via})`, value: result.non2xx, unit: 'count' },
    { scenario: 'create', metric: `accepted (2xx) runs (${via})`, value: result['2xx'], unit: 'count' },
    ...(compare ? againstFloor('create', load, compare.floor, via) : []),
  ];
}

async function rawPublishRate(natsUrl: string, seconds: number): Promise<number> {
  const nc = await connect({ servers: natsUrl });
  const jsm = await jetstreamManager(nc);
  const name = `BENCH_RAW_${Date.now()}`;
  await jsm.streams.add({ name, subjects: [`${name.toLowerCase()}.>`], duplicate_window: 120_000_000_000 });
  const js = jetstream(nc);
  let count = 0;
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (Date.now() < deadline) {
        const id = randomUUID();
        await js.publish(`${name.toLowerCase()}.cmd.${id}`, CREATE_BODY, { msgID: id, expect: { lastSubjectSequence: 0 } });
        count++;
      }
    }),
  );
  await jsm.streams.delete(name);
  await nc.close();
  return count / seconds;
}

/** GET /runs/{id} against the raw primary-key query it ends in; with `compare`, against the framework floor too. */
export async function readThroughput(
  baseUrl: string,
  token: string,
  runId: string,
  databaseUrl: string,
  schema: string,
  seconds: number,
  via = 'straight to the api',
  compare?: FloorComparison,
): Promise<Figure[]> {
  const load = await loadWithCpu({ url: `${baseUrl}/runs/${runId}`, connections: 64, duration: seconds, headers: { authorization: `Bearer ${token}` } }, compare?.apiPid ?? process.pid);
  const { result } = load;
  const clients = await Promise.all(
    Array.from({ length: 16 }, async () => {
      const c = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
      await c.connect();
      return c;
    }),
  );
  let count = 0;
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    clients.map(async (c) => {
      while (Date.now() < deadline) {
        await c.query('SELECT body, version FROM runs WHERE id = $1 AND workspace_id = $2', [runId, 'bench']);
        count++;
      }
    }),
  );
  await Promise.all(clients.map((c) => c.end()));
  const raw = count / seconds;
  return [
    { scenario: 'read', metric: `GET /runs/{id} throughput (64 connections, ${via})`, value: round(load.rate), unit: 'req/s', baseline: { what: 'raw pg query by primary key, 16 connections', value: round(raw) }, ratio: round(load.rate / raw, 3), ...(compare ? { target: atLeast(0.4, 'ratio') } : {}) },
    { scenario: 'read', metric: `GET /runs/{id} latency p99 (${via})`, value: result.latency.p99, unit: 'ms', ...(compare ? { target: below(50) } : {}) },
    ...(compare ? againstFloor('read', load, compare.floor, via) : []),
  ];
}

/**
 * Create-to-first-event through the whole stack at a steady rate, against raw NATS pub-to-sub: the
 * create straight to the api, the stream straight to the relay (as an ingress routes them), after a
 * second of warm-up at the same rate. Also its two halves (the create's answer, then the stream's
 * first event), so a queue shows where it is.
 */
export async function endToEnd(
  apiUrl: string,
  relayUrl: string,
  token: string,
  natsUrl: string,
  perSecond: number,
  seconds: number,
  measureCpu: () => CpuUsage,
  judgeLatency: boolean,
): Promise<{ figures: Figure[]; cpuPerRun: Map<string, number> }> {
  const auth = { authorization: `Bearer ${token}` };
  const steady = async (count: number): Promise<{ total: number[]; answers: number[]; firstEvents: number[]; failed: number }> => {
    const out = { total: [] as number[], answers: [] as number[], firstEvents: [] as number[], failed: 0 };
    const interval = 1000 / perSecond;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        await new Promise((r) => setTimeout(r, Math.max(0, t0 + i * interval - performance.now())));
        try {
          const started = performance.now();
          const created = await postJson(`${apiUrl}/runs`, { ...auth, 'idempotency-key': randomUUID() }, CREATE_BODY);
          if (created.status !== 201) {
            throw new Error(`create answered ${created.status}`);
          }
          const answered = performance.now();
          await firstEvent(`${relayUrl}/runs/${(created.json as { id: string }).id}/events`, auth);
          const done = performance.now();
          out.total.push(done - started);
          out.answers.push(answered - started);
          out.firstEvents.push(done - answered);
        } catch {
          out.failed++;
        }
      }),
    );
    return out;
  };
  await steady(perSecond); // warm-up
  const cpu = measureCpu();
  const { total, answers, firstEvents, failed } = await steady(perSecond * seconds);
  // The runs' lives go on a little after their first events: let the worker finish them.
  await new Promise((r) => setTimeout(r, 3000));
  const cpuPerRun = perRun(cpu.since(), perSecond * seconds);
  const raw = await rawNatsLatency(natsUrl, 500);
  const at = `at ${perSecond} runs/s`;
  const figures: Figure[] = [
    { scenario: 'end-to-end', metric: `create-to-first-event p50 ${at}`, value: round(percentile(total, 50)), unit: 'ms', baseline: { what: 'raw NATS publish-to-subscriber p50', value: round(percentile(raw, 50), 3) }, ...(judgeLatency ? { target: below(20) } : {}) },
    { scenario: 'end-to-end', metric: `create-to-first-event p99 ${at}`, value: round(percentile(total, 99)), unit: 'ms', baseline: { what: 'raw NATS publish-to-subscriber p99', value: round(percentile(raw, 99), 3) }, ...(judgeLatency ? { target: below(100) } : {}) },
    { scenario: 'end-to-end', metric: `of which the create's answer, p50 ${at}`, value: round(percentile(answers, 50)), unit: 'ms' },
    { scenario: 'end-to-end', metric: `of which the create's answer, p99 ${at}`, value: round(percentile(answers, 99)), unit: 'ms' },
    { scenario: 'end-to-end', metric: `of which answer to first event, p50 ${at}`, value: round(percentile(firstEvents, 50)), unit: 'ms' },
    { scenario: 'end-to-end', metric: `of which answer to first event, p99 ${at}`, value: round(percentile(firstEvents, 99)), unit: 'ms' },
    { scenario: 'end-to-end', metric: `runs that failed (create not 201, or no first event) ${at}`, value: failed, unit: 'count' },
  ];
  return { figures, cpuPerRun };
}

async function rawNatsLatency(natsUrl: string, samples: number): Promise<number[]> {
  const nc = await connect({ servers: natsUrl });
  const subject = `bench.latency.${randomUUID()}`;
  const out: number[] = [];
  const sub = nc.subscribe(subject);
  const done = (async () => {
    for await (const m of sub) {
      out.push(performance.now() - Number(m.string()));
      if (out.length >= samples) {
        break;
      }
    }
  })();
  for (let i = 0; i < samples; i++) {
    nc.publish(subject, String(performance.now()));
    await new Promise((r) => setTimeout(r, 1));
  }
  await done;
  await nc.close();
  return out;
}

/** Idle SSE connections on one relay: memory each, and the time to deliver one event to all. */
export async function fanOut(
  baseUrl: string,
  token: string,
  runId: string,
  relayPid: number,
  connections: number,
  appendEvent: () => Promise<void>,
): Promise<Figure[]> {
  const before = rssOf(relayPid);
  const arrivals: number[] = [];
  const controllers: AbortController[] = [];
  let ready = 0;
  let sentAt = 0;
  const opened: Promise<void>[] = [];
  for (let i = 0; i < connections; i++) {
    const controller = new AbortController();
    controllers.push(controller);
    opened.push(
      (async () => {
        const res = await fetch(`${baseUrl}/runs/${runId}/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
        const reader = res.body!.getReader();
        let seen = 0;
        let counted = false;
        let arrived = false;
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) {
            return;
          }
          const text = new TextDecoder().decode(value);
          seen += (text.match(/\nid: /g) ?? []).length + (text.startsWith('id: ') ? 1 : 0);
          if (seen >= 1 && !counted && sentAt === 0) {
            counted = true;
            ready++;
          } else if (sentAt > 0 && text.includes('id: ') && !arrived) {
            arrived = true;
            arrivals.push(performance.now() - sentAt);
          }
        }
      })().catch(() => undefined),
    );
  }
  while (ready < connections) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const after = rssOf(relayPid);
  sentAt = performance.now();
  await appendEvent();
  const deadline = Date.now() + 10_000;
  while (arrivals.length < connections && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  controllers.forEach((c) => c.abort());
  await Promise.all(opened);
  const bare = await bareSseBaseline(connections);
  const perConnectionKiB = (after - before) / connections / 1024;
  const deliveryMs = Math.max(...arrivals, 0);
  return [
    { scenario: 'fan-out', metric: `memory per idle SSE connection (${connections} streams, relay RSS)`, value: round(perConnectionKiB, 1), unit: 'KiB', baseline: { what: 'bare node:http SSE server', value: round(bare.perConnectionKiB, 1) }, ratio: round(perConnectionKiB / bare.perConnectionKiB, 2), target: atMost(2, 'ratio') },
    // The delivery target is at 5,000 streams; smaller sizes are shown, not judged.
    { scenario: 'fan-out', metric: `one event to all ${connections} streams (last arrival)`, value: round(deliveryMs), unit: 'ms', baseline: { what: 'bare node:http SSE server', value: round(bare.deliveryMs) }, ratio: round(deliveryMs / bare.deliveryMs, 2), ...(connections >= 5000 ? { target: atMost(1.3, 'ratio') } : {}) },
    { scenario: 'fan-out', metric: `streams that got the event`, value: arrivals.length, unit: `of ${connections}` },
  ];
}

function rssOf(pid: number): number {
  // /proc/<pid>/status VmRSS, in bytes.
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

async function bareSseBaseline(connections: number): Promise<{ perConnectionKiB: number; deliveryMs: number }> {
  const clients: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 1000\n\n');
    clients.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  global.gc?.();
  const before = process.memoryUsage().rss;
  const controllers: AbortController[] = [];
  const arrivals: number[] = [];
  let sentAt = 0;
  const readers = Array.from({ length: connections }, async () => {
    const controller = new AbortController();
    controllers.push(controller);
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal });
    const reader = res.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) {
        return;
      }
      if (sentAt > 0 && new TextDecoder().decode(value).includes('id: ')) {
        arrivals.push(performance.now() - sentAt);
      }
    }
  });
  while (clients.length < connections) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const after = process.memoryUsage().rss;
  sentAt = performance.now();
  for (const c of clients) {
    c.write('id: 1\nevent: x\ndata: {}\n\n');
  }
  const deadline = Date.now() + 10_000;
  while (arrivals.length < connections && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  controllers.forEach((c) => c.abort());
  await Promise.all(readers.map((r) => r.catch(() => undefined)));
  server.closeAllConnections();
  server.close();
  // The client side lives in this process too: half the growth is the server's, roughly.
  return { perConnectionKiB: (after - before) / 2 / connections / 1024, deliveryMs: Math.max(...arrivals, 0) };
}

/**
 * Resume cost by position: a run whose events are spread through a stream of `total` events (the rest
 * belong to other runs), resumed through the relay at its start, middle and near its head.
 */
export async function resumeCost(
  relayUrl: string,
  token: string,
  natsUrl: string,
  names: { eventsStream: string; subject: (runId: string) => string },
  total: number,
): Promise<Figure[]> {
  const nc = await connect({ servers: natsUrl });
  const js = jetstream(nc);
  const runId = randomUUID();
  const every = 1000;
  const runSeqs: number[] = [];
  let next = 0;
  let previous = 0;
  const base = JSON.stringify({ type: 'run.log', runId, workspaceId: 'bench', time: new Date().toISOString(), data: { index: 0, stream: 'stdout', line: 'x', at: new Date().toISOString() } });
  // Other runs' events in batches of 64 in flight; every 1000th message is this run's (in order).
  while (next < total) {
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < 64 && next < total; i++, next++) {
      if (next % every === 0) {
        await Promise.all(batch.splice(0));
        const meta = headers();
        meta.set(PREVIOUS_EVENT_HEADER, String(previous));
        const ack = await js.publish(names.subject(runId), base, { headers: meta });
        previous = ack.seq;
        runSeqs.push(ack.seq);
      } else {
        batch.push(js.publish(names.subject(randomUUID()), base));
      }
    }
    await Promise.all(batch);
  }
  await nc.close();
  const at = async (lastEventId: number): Promise<number> => {
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await untilFirstEvent(`${relayUrl}/runs/${runId}/events`, { authorization: `Bearer ${token}`, 'last-event-id': String(lastEventId) });
      samples.push(performance.now() - started);
    }
    return percentile(samples, 50);
  };
  const start = await at(runSeqs[0]!);
  const middle = await at(runSeqs[Math.floor(runSeqs.length / 2)]!);
  const head = await at(runSeqs[runSeqs.length - 2]!);
  return [
    { scenario: 'resume', metric: `time to first event, resuming at the start of a ${total.toLocaleString('en')}-event stream`, value: round(start), unit: 'ms' },
    { scenario: 'resume', metric: 'time to first event, resuming in the middle', value: round(middle), unit: 'ms', baseline: { what: 'resume at the start', value: round(start) }, ratio: round(middle / start, 2), target: atMost(2, 'ratio') },
    { scenario: 'resume', metric: 'time to first event, resuming near the head', value: round(head), unit: 'ms', baseline: { what: 'resume at the start', value: round(start) }, ratio: round(head / start, 2) },
  ];
}

/** Opens an event stream and returns once its first event (an `id:` line) has arrived. */
async function untilFirstEvent(url: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, { headers });
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\nid: ') && !text.startsWith('id: ')) {
    const { value, done } = await reader.read();
    if (done) {
      break;
    }
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
}
