import { isTerminalState, type RunEvent, type RunState } from '@wrs/domain';
import { STATE_VERSION_SQL } from '@wrs/persistence';
import type { Sql, Statement } from './projection-sql';

export interface StoredEvent {
  readonly seq: number;
  readonly previous: number | null;
  readonly event: RunEvent;
}

export interface StoredRow {
  readonly version: number;
  readonly stateVersion: number;
  readonly body: RunState;
}

export interface NewEvent extends StoredEvent {
  readonly runId: string;
}

/** A run's row to write: its state after the fold, at its version and state version. */
export interface RunToWrite {
  readonly runId: string;
  readonly state: RunState | null;
  readonly version: number;
  readonly stateVersion: number;
}

/** Advisory locks in one global order (by key), so two replicas' batches cannot deadlock. */
const LOCK: Statement = {
  name: 'wrs_projection_lock',
  text: `SELECT pg_advisory_xact_lock(key) FROM (
           SELECT DISTINCT hashtextextended(id, 0) AS key FROM unnest($1::text[]) AS id ORDER BY key
         ) AS ordered`,
};

// A batch's events and rows go to Postgres as one JSON array each (`jsonb_to_recordset`), not as an array
// per column: node-postgres escapes every element of an array parameter with two regular expressions and
// Postgres parses the array and then each element, 1.3-2x the CPU per batch of run bodies on both sides
// (docs/performance.md, "2026-11-26 16:30 UTC").

/**
 * Stores the events and reads, as they were before this statement (one snapshot for all its parts),
 * each run's row and its stored events above the row's version (all of them for a run without a row),
 * and which of the events were new. Each run is looked up on its own, by key: a lateral subquery with
 * `OFFSET 0`, which Postgres cannot merge into a join, so the one plan it keeps (PROJECTION_PLANNING)
 * is a few index probes per run whatever the tables' size or statistics.
 */
export const STORE_AND_READ: Statement = {
  name: 'wrs_projection_store_and_read',
  text: `WITH inserted AS (
           INSERT INTO run_events (run_id, seq, previous, type, event)
           SELECT run_id, seq, previous, type, event
             FROM jsonb_to_recordset($2::jsonb) AS t(run_id uuid, seq bigint, previous bigint, type text, event jsonb)
           ON CONFLICT DO NOTHING RETURNING run_id, seq
         ), wanted AS (
           SELECT f.id, r.version, r.state_version, r.body
             FROM unnest($1::uuid[]) AS f(id)
             LEFT JOIN LATERAL (SELECT runs.version, ${STATE_VERSION_SQL}, runs.body FROM runs WHERE runs.id = f.id OFFSET 0) AS r ON true
         )
         SELECT 'row' AS kind, w.id AS run_id, w.version AS seq, NULL::bigint AS previous, w.state_version, w.body AS doc
           FROM wanted w WHERE w.version IS NOT NULL
         UNION ALL
         SELECT 'stored', w.id, e.seq, e.previous, NULL, e.event
           FROM wanted w
           CROSS JOIN LATERAL (SELECT stored.seq, stored.previous, stored.event FROM run_events stored
                                WHERE stored.run_id = w.id AND stored.seq > COALESCE(w.version, 0) OFFSET 0) AS e
         UNION ALL
         SELECT 'inserted', run_id, seq, NULL, NULL, NULL FROM inserted`,
};

export const ROWS: Statement = {
  name: 'wrs_projection_rows',
  text: `SELECT id, version, ${STATE_VERSION_SQL}, body FROM runs WHERE id = ANY($1::uuid[])`,
};

/** Looked up run by run as STORE_AND_READ does (`OFFSET 0` keeps the lateral subquery a probe per run). */
export const EVENTS_AFTER: Statement = {
  name: 'wrs_projection_events_after',
  text: `SELECT f.run_id, e.seq, e.previous, e.event
         FROM unnest($1::uuid[], $2::bigint[]) AS f(run_id, after)
         CROSS JOIN LATERAL (SELECT stored.seq, stored.previous, stored.event FROM run_events stored
                              WHERE stored.run_id = f.run_id AND stored.seq > f.after OFFSET 0) AS e
         ORDER BY f.run_id, e.seq`,
};

/**
 * Upserts the runs' rows and inserts their labels (`GET /runs?label=`'s index) in one statement. No
 * version guard: under the lock the fold covers every event committed so far, so it is the newest
 * truth. Labels never change after a run's creation: rows already there stay.
 */
export const WRITE_RUNS: Statement = {
  name: 'wrs_projection_write_runs',
  text: `WITH labelled AS (
           INSERT INTO run_labels (workspace_id, label, created_at, run_id)
           SELECT * FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::uuid[]) ON CONFLICT DO NOTHING
         )
         INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, state_version, updated_at)
         SELECT id, workspace_id, state, terminal, version, body, created_at, state_version, now()
         FROM jsonb_to_recordset($1::jsonb) AS t(id uuid, workspace_id text, state text, terminal boolean, version bigint,
           body jsonb, created_at timestamptz, state_version bigint)
         ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, terminal = EXCLUDED.terminal,
           version = EXCLUDED.version, state_version = EXCLUDED.state_version, body = EXCLUDED.body, updated_at = now()`,
};

export async function lockRuns(sql: Sql, runIds: readonly string[]): Promise<void> {
  await sql.run(LOCK, [runIds]);
}

export interface StoreResult {
  /** Per run, the sequences of the events this statement stored (not stored before). */
  readonly applied: Map<string, number[]>;
  readonly rows: Map<string, StoredRow>;
  /** Per run, the events stored before this statement above its row's version, in sequence order. */
  readonly storedAbove: Map<string, StoredEvent[]>;
}

export async function storeAndRead(sql: Sql, runIds: readonly string[], events: readonly NewEvent[]): Promise<StoreResult> {
  const result: {
    kind: 'row' | 'stored' | 'inserted';
    run_id: string;
    seq: string;
    previous: string | null;
    state_version: string | null;
    doc: unknown;
  }[] = await sql.run(STORE_AND_READ, [
    runIds,
    JSON.stringify(events.map((e) => ({ run_id: e.runId, seq: e.seq, previous: e.previous, type: e.event.type, event: e.event }))),
  ]);
  const applied = new Map<string, number[]>();
  const rows = new Map<string, StoredRow>();
  const storedAbove = new Map<string, StoredEvent[]>();
  for (const r of result) {
    if (r.kind === 'row') {
      rows.set(r.run_id, { version: Number(r.seq), stateVersion: Number(r.state_version), body: r.doc as RunState });
    } else if (r.kind === 'stored') {
      push(storedAbove, r.run_id, {
        seq: Number(r.seq),
        previous: r.previous === null ? null : Number(r.previous),
        event: r.doc as RunEvent,
      });
    } else {
      push(applied, r.run_id, Number(r.seq));
    }
  }
  storedAbove.forEach((events) => events.sort((a, b) => a.seq - b.seq));
  return { applied, rows, storedAbove };
}

export async function rowsOf(sql: Sql, runIds: readonly string[]): Promise<Map<string, StoredRow>> {
  const rows: { id: string; version: string; state_version: string; body: RunState }[] = await sql.run(ROWS, [runIds]);
  return new Map(rows.map((row) => [row.id, { version: Number(row.version), stateVersion: Number(row.state_version), body: row.body }]));
}

/** Each run's stored events above a version (all of them for a null start), in sequence order. */
export async function eventsAfter(sql: Sql, from: ReadonlyMap<string, { version: number } | null>): Promise<Map<string, StoredEvent[]>> {
  const byRun = new Map<string, StoredEvent[]>();
  if (from.size === 0) {
    return byRun;
  }
  const rows: { run_id: string; seq: string; previous: string | null; event: RunEvent }[] = await sql.run(EVENTS_AFTER, [
    [...from.keys()],
    [...from.values()].map((start) => start?.version ?? 0),
  ]);
  for (const row of rows) {
    push(byRun, row.run_id, { seq: Number(row.seq), previous: row.previous === null ? null : Number(row.previous), event: row.event });
  }
  return byRun;
}

export async function writeRuns(sql: Sql, runs: readonly RunToWrite[]): Promise<void> {
  if (runs.length === 0) {
    return;
  }
  const states = runs.map((r) => r.state as RunState);
  // A row written by hand or by an old tool may lack its workload: it has no labels either.
  const labels = states.flatMap((s) =>
    Object.entries((s.workload as RunState['workload'] | undefined)?.labels ?? {}).map(([key, value]) => ({ s, label: `${key}=${value}` })),
  );
  await sql.run(WRITE_RUNS, [
    JSON.stringify(
      runs.map((r, i) => {
        const s = states[i]!;
        return {
          id: r.runId,
          workspace_id: s.workspaceId,
          state: s.state,
          terminal: isTerminalState(s.state),
          version: r.version,
          body: s,
          created_at: s.createdAt,
          state_version: r.stateVersion,
        };
      }),
    ),
    labels.map((l) => l.s.workspaceId),
    labels.map((l) => l.label),
    labels.map((l) => l.s.createdAt),
    labels.map((l) => l.s.runId),
  ]);
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) {
    list.push(value);
  } else {
    map.set(key, [value]);
  }
}
