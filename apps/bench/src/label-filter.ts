import { randomUUID } from 'node:crypto';
import { migrate, openDatabase, RunQueries } from '@wrs/persistence';
import { dropSchema } from '@wrs/testing';
import type { Figure } from './figure';
import { percentile, round } from './stats';
import { below } from './target';

const WORKSPACE = 'bench-labels';
const TARGET_MS = 20;

/** Filters of different selectivity in the measured workspace (fractions of its runs). */
const FILTERS: { readonly what: string; readonly labels: Record<string, string> }[] = [
  { what: 'team=ml (9 %)', labels: { team: 'ml' } },
  { what: 'team=ml, env=prod (3 %)', labels: { team: 'ml', env: 'prod' } },
  { what: 'shard=s7 (0.9 %)', labels: { shard: 's7' } },
  { what: 'shard=s7, team=ml (0.09 %)', labels: { shard: 's7', team: 'ml' } },
  { what: 'batch=b42 (0.009 %)', labels: { batch: 'b42' } },
  { what: 'team=ml, batch=b42 (0.0009 %)', labels: { team: 'ml', batch: 'b42' } },
  { what: 'team=nobody (none)', labels: { team: 'nobody' } },
];

/** The bench stack's api, to time `GET /runs` too: the runs then go into its schema and workspace. */
export interface LabelBenchApi {
  readonly url: string;
  readonly token: string;
  readonly workspace: string;
  readonly schema: string;
}

/**
 * `GET /runs?label=...`, first page of 20: `total` runs seeded by SQL (the migrations' tables and
 * indexes, the projection's rows), nine in ten of them in one workspace, the worst case for a list
 * walked by creation time. Each filter is timed `samples` times after a warm-up, one request at a time:
 * the list's own query (RunQueries.list) and, given the stack's api, the request over HTTP. Without an
 * api the runs go into a schema of their own, dropped afterwards (the stack's goes with the stack).
 */
export async function labelFilterPage(databaseUrl: string, total: number, samples: number, api?: LabelBenchApi): Promise<Figure[]> {
  const schema = api?.schema ?? `benchlabels${randomUUID().slice(0, 6)}`;
  const workspace = api?.workspace ?? WORKSPACE;
  const database = { url: databaseUrl, schema };
  await migrate(database);
  const db = await openDatabase(database);
  try {
    const seeded = performance.now();
    await db.query(SEED_SQL, [total, workspace]);
    // What the projection writes beside each labelled run.
    await db.query(
      `INSERT INTO run_labels (workspace_id, label, created_at, run_id)
       SELECT workspace_id, l.key || '=' || l.value, created_at, id FROM runs, jsonb_each_text(body->'workload'->'labels') AS l
       WHERE body->>'idempotencyKey' LIKE 'seeded-%' ON CONFLICT DO NOTHING`,
    );
    await db.query('VACUUM ANALYZE runs');
    await db.query('VACUUM ANALYZE run_labels');
    console.error(`labels: ${total} runs seeded and analyzed in ${Math.round((performance.now() - seeded) / 1000)} s`);
    const queries = new RunQueries(db);
    const figures: Figure[] = [];
    const of = (what: string) => `GET /runs first page (20) filtered by ${what}, ${total.toLocaleString('en')} runs`;
    for (const filter of FILTERS) {
      const labels = Object.entries(filter.labels).map(([key, value]) => ({ key, value }));
      const query = await timed(samples, async () => (await queries.list(workspace, { limit: 20, labels })).items.length);
      figures.push(figure(`${of(filter.what)}, the query: p99`, query));
      if (api) {
        const search = new URLSearchParams([
          ['limit', '20'],
          ...labels.map(({ key, value }): [string, string] => ['label', `${key}=${value}`]),
        ]);
        const request = await timed(samples, async () => {
          const res = await fetch(`${api.url}/runs?${search.toString()}`, { headers: { authorization: `Bearer ${api.token}` } });
          const body = (await res.json()) as { items?: unknown[] };
          if (res.status !== 200 || !body.items) {
            throw new Error(`GET /runs?${search.toString()} answered ${res.status}`);
          }
          return body.items.length;
        });
        figures.push(figure(`${of(filter.what)}, over HTTP to the api: p99`, request));
      }
    }
    return figures;
  } finally {
    await db.destroy();
    if (!api) {
      await dropSchema(databaseUrl, schema);
    }
  }
}

interface Timing {
  readonly times: number[];
  readonly shown: number;
}

/** Times `samples` calls, one at a time, after 20 unmeasured ones. */
async function timed(samples: number, call: () => Promise<number>): Promise<Timing> {
  for (let i = 0; i < 20; i++) {
    await call();
  }
  const times: number[] = [];
  let shown = 0;
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    shown = await call();
    times.push(performance.now() - started);
  }
  return { times, shown };
}

function figure(metric: string, { times, shown }: Timing): Figure {
  return {
    scenario: 'labels',
    metric: `${metric} (p50 ${round(percentile(times, 50))} ms, ${shown} shown)`,
    value: round(percentile(times, 99)),
    unit: 'ms',
    target: below(TARGET_MS),
  };
}

/**
 * Finished runs, one a second, as the projection stores them. Labels are independent of each other:
 * team (10 values), env (3), shard (100), batch (10,000); one run in ten has none. One run in ten
 * belongs to one of 50 other workspaces.
 */
const SEED_SQL = `
INSERT INTO runs (id, workspace_id, state, terminal, version, state_version, body, created_at, updated_at)
SELECT id, ws, 'succeeded', true, 4, 4,
  jsonb_build_object('runId', id, 'workspaceId', ws, 'state', 'succeeded',
    'workload', jsonb_build_object('image', 'busybox:1.36', 'args', jsonb_build_array('echo', 'hi'), 'labels', labels),
    'requested', jsonb_build_object('provider', 'auto', 'region', 'auto'),
    'placement', jsonb_build_object('provider', 'simulator', 'region', 'local', 'reason', 'the only candidate', 'candidates', jsonb_build_array()),
    'idempotencyKey', 'seeded-' || i, 'createdAt', to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'dispatchedAt', at, 'startedAt', at, 'finishedAt', at, 'exitCode', 0, 'failure', null, 'cancellation', null, 'logLines', 1),
  at, at
FROM (
  SELECT i, md5('run' || i)::uuid AS id,
    CASE WHEN i % 10 = 3 THEN 'other-' || (i % 50) ELSE $2 END AS ws,
    timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second' AS at,
    CASE WHEN i % 10 = 7 THEN '{}'::jsonb ELSE jsonb_build_object(
      'team', (ARRAY['ml', 'web', 'data', 'infra', 'search', 'ads', 'mobile', 'sec', 'ops', 'core'])[1 + (hashint4(i) & 1023) % 10],
      'env', (ARRAY['prod', 'staging', 'dev'])[1 + (hashint4(i + 1) & 1023) % 3],
      'shard', 's' || (hashint4(i + 2) & 65535) % 100,
      'batch', 'b' || (hashint4(i + 3) & 1048575) % 10000) END AS labels
  FROM generate_series(1, $1::int) AS i
) AS seeded`;
