import type autocannon from 'autocannon';
import { Client } from 'pg';
import type { Figure } from './figure';
import { againstFloor, type FloorComparison } from './floor/floor-scenario';
import { loadWithCpu } from './http-load';
import { round } from './stats';
import { atLeast, below } from './target';

/** The read load: GET `url` (a run's) at 64 connections for `seconds`. Ours and the essential api's are driven by it alike. */
export function readLoad(url: string, token: string, seconds: number): autocannon.Options {
  return { url, connections: 64, duration: seconds, headers: { authorization: `Bearer ${token}` } };
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
  const load = await loadWithCpu(readLoad(`${baseUrl}/runs/${runId}`, token, seconds), compare?.apiPid ?? process.pid);
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
    {
      scenario: 'read',
      metric: `GET /runs/{id} throughput (64 connections, ${via})`,
      value: round(load.rate),
      unit: 'req/s',
      baseline: { what: 'raw pg query by primary key, 16 connections', value: round(raw) },
      ratio: round(load.rate / raw, 3),
      ...(compare ? { target: atLeast(0.4, 'ratio') } : {}),
    },
    {
      scenario: 'read',
      metric: `GET /runs/{id} latency p99 (${via})`,
      value: result.latency.p99,
      unit: 'ms',
      ...(compare ? { target: below(50) } : {}),
    },
    ...(compare ? againstFloor('read', load, compare.floor, via) : []),
  ];
}
