import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Figure } from './figure';
import { againstFloor, type FloorComparison } from './floor/floor-scenario';
import { loadWithCpu } from './http-load';
import { connectAsServicesDo } from './raw-nats';
import { round } from './stats';
import { atLeast, below } from './target';

/** The body of every create the bench sends: a simulated workload that lives 50 ms. */
export const CREATE_BODY = JSON.stringify({
  workload: { image: 'busybox', env: { SIM_DURATION_MS: '50' } },
  provider: 'auto',
  region: 'auto',
});

/**
 * The create load: POST `url` at 64 connections for `seconds`, the same body and a fresh Idempotency-Key
 * each request. Ours and the essential api's are driven by it alike.
 */
export function createLoad(url: string, token: string, seconds: number): autocannon.Options {
  return {
    url,
    connections: 64,
    duration: seconds,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() }, body: CREATE_BODY }) }],
  };
}

/**
 * POST /runs at 64 connections against raw JetStream publishes of the same bytes, same settings; with
 * `compare`, also against the framework floor. Only a run with `compare`, not marked unjudged, carries the targets.
 */
export async function createThroughput(
  baseUrl: string,
  token: string,
  natsUrl: string,
  seconds: number,
  via = 'straight to the api',
  compare?: FloorComparison,
): Promise<Figure[]> {
  const load = await loadWithCpu(createLoad(`${baseUrl}/runs`, token, seconds), compare?.apiPid ?? process.pid);
  const { result, rate } = load;
  const raw = await rawPublishRate(natsUrl, seconds);
  const judged = compare !== undefined && compare.judged !== false;
  return [
    {
      scenario: 'create',
      metric: `POST /runs throughput (64 connections, ${via})`,
      value: round(rate),
      unit: 'req/s',
      baseline: { what: 'raw JetStream publish, 64 in flight', value: round(raw) },
      ratio: round(rate / raw, 3),
      ...(judged ? { target: atLeast(0.15, 'ratio') } : {}),
    },
    { scenario: 'create', metric: `POST /runs latency p50 (${via})`, value: result.latency.p50, unit: 'ms' },
    {
      scenario: 'create',
      metric: `POST /runs latency p99 (${via})`,
      value: result.latency.p99,
      unit: 'ms',
      ...(judged ? { target: below(100) } : {}),
    },
    { scenario: 'create', metric: `non-2xx answers (${via})`, value: result.non2xx, unit: 'count' },
    { scenario: 'create', metric: `accepted (2xx) runs (${via})`, value: result['2xx'], unit: 'count' },
    ...(compare ? againstFloor('create', load, compare.floor, via, judged) : []),
  ];
}

async function rawPublishRate(natsUrl: string, seconds: number): Promise<number> {
  const nc = await connectAsServicesDo(natsUrl);
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
