import { advanceVersions, evolve, isTerminalState, type RunEvent, type RunState } from '@wrs/domain';
import { STATE_VERSION_SQL } from '@wrs/persistence';
import type { DataSource, EntityManager } from 'typeorm';

export interface ProjectionResult {
  /** The run's state after this event, or null while its creation event has not arrived. */
  readonly state: RunState | null;
  readonly version: number;
  /** The sequence of the last state-changing event folded in (not a log line). */
  readonly stateVersion: number;
  /** False when the event had been projected before (a redelivery). */
  readonly applied: boolean;
}

export interface DeliveredEvent {
  readonly runId: string;
  readonly seq: number;
  /**
   * The sequence of the run's previous event (0 for its first), as the message says; null or absent
   * when unknown, and then the event is taken to follow whatever came before it.
   */
  readonly previous?: number | null;
  readonly event: RunEvent;
}

export interface ProjectedRun {
  readonly runId: string;
  /** The run's state after the batch, or null while its creation event has not arrived. */
  readonly state: RunState | null;
  readonly version: number;
  /** The sequence of the last state-changing event folded in (not a log line): the run's ETag. */
  readonly stateVersion: number;
  /** The sequences of the batch's events of this run that were new (not redeliveries). */
  readonly appliedSeqs: readonly number[];
  /**
   * The sequence of an event the run's chain lacks: stored events name it as their previous one, but
   * it has not been delivered (yet). The row stops before it; null when the chain has no hole.
   */
  readonly missing: number | null;
}

interface StoredEvent {
  readonly seq: number;
  readonly previous: number | null;
  readonly event: RunEvent;
}

/**
 * Projects events into Postgres. A run's events are kept, and its row is the fold of the longest
 * unbroken chain of them from its first event (each event names its previous one), under a per-run lock,
 * in one transaction. So the row is correct whatever order and however often events are delivered, no
 * replica can regress it, and a row at version V has folded every event of the run up to V: a client
 * that reads it and then follows the events from V misses none (found by the chaos run: an event whose
 * delivery was lost to a NATS fault came 30 s later, and a row that had folded past it was wrong).
 *
 * A batch costs a fixed number of statements whatever its size (lock, insert, read, upsert), so a
 * backlog is caught up at the rate Postgres takes rows, not at one transaction per event.
 */
export class RunProjection {
  constructor(private readonly db: DataSource) {}

  async project(runId: string, seq: number, event: RunEvent, previous: number | null = null): Promise<ProjectionResult> {
    const [run] = await this.projectBatch([{ runId, seq, event, previous }]);
    return {
      state: run?.state ?? null,
      version: run?.version ?? 0,
      stateVersion: run?.stateVersion ?? 0,
      applied: run?.appliedSeqs.includes(seq) ?? false,
    };
  }

  /**
   * Folds a run on across the hole its chain stops at: for events JetStream no longer holds (retention
   * or purge), which no delivery will ever fill.
   */
  async foldAcrossHole(runId: string): Promise<ProjectedRun | null> {
    return this.db.transaction(async (tx) => {
      await lockRuns(tx, [runId]);
      const row = (await rowsOf(tx, [runId])).get(runId) ?? null;
      const stored = await eventsAfter(tx, new Map([[runId, row]]));
      const chain = foldChain(row, stored.get(runId) ?? [], Number.POSITIVE_INFINITY);
      if (!chain.state || chain.version === row?.version) {
        return null;
      }
      const projected: ProjectedRun = { runId, ...chain, appliedSeqs: [] };
      await upsertRuns(tx, [projected]);
      return projected;
    });
  }

  async projectBatch(delivered: readonly DeliveredEvent[]): Promise<ProjectedRun[]> {
    if (delivered.length === 0) {
      return [];
    }
    return this.db.transaction(async (tx) => {
      const runIds = [...new Set(delivered.map((d) => d.runId))];
      await lockRuns(tx, runIds);
      const inserted: { run_id: string; seq: string }[] = await tx.query(
        `INSERT INTO run_events (run_id, seq, previous, type, event)
         SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::jsonb[])
         ON CONFLICT DO NOTHING RETURNING run_id, seq`,
        [
          delivered.map((d) => d.runId),
          delivered.map((d) => d.seq),
          delivered.map((d) => d.previous ?? null),
          delivered.map((d) => d.event.type),
          delivered.map((d) => JSON.stringify(d.event)),
        ],
      );
      const applied = new Map<string, number[]>();
      for (const row of inserted) {
        applied.set(row.run_id, [...(applied.get(row.run_id) ?? []), Number(row.seq)]);
      }
      const current = await rowsOf(tx, runIds);
      // A row folds its chain up to its version, so the chain goes on from there; an event stored at or
      // below it (one without a known previous, delivered late) means folding from the start again.
      const from = new Map(
        [...applied.keys()].map((runId) => {
          const row = current.get(runId);
          const late = !row || Math.min(...applied.get(runId)!) <= row.version;
          return [runId, late ? null : row] as const;
        }),
      );
      const stored = await eventsAfter(tx, from);
      const projected = runIds.map((runId): ProjectedRun => {
        const seqs = applied.get(runId) ?? [];
        const row = current.get(runId);
        if (seqs.length === 0) {
          return { runId, state: row?.body ?? null, version: row?.version ?? 0, stateVersion: row?.stateVersion ?? 0, appliedSeqs: seqs, missing: null };
        }
        const start = from.get(runId) ?? null;
        const chain = foldChain(start, stored.get(runId) ?? [], start ? 0 : (row?.version ?? 0));
        return { runId, ...chain, appliedSeqs: seqs };
      });
      // No version guard: under the lock the fold covers every event committed so far, so it is
      // always the newest truth. A chain that did not get past its row (a hole right after it) leaves
      // the row as it is.
      const changed = projected.filter((p) => {
        const start = from.get(p.runId);
        return p.state !== null && p.appliedSeqs.length > 0 && !(start && p.version === start.version);
      });
      await upsertRuns(tx, changed);
      return projected;
    });
  }
}

/**
 * Folds stored events onto a row along the chain: each event must name the one before it. It stops at
 * a hole (an event naming a previous one that is not there) unless the hole lies at or below
 * `acceptedUpTo`: holes a row has already been folded across (a refold from the start must not fall
 * back behind them), or every hole when told no delivery will fill them.
 */
function foldChain(
  start: StoredRow | null,
  events: readonly StoredEvent[],
  acceptedUpTo: number,
): { state: RunState | null; version: number; stateVersion: number; missing: number | null } {
  let state: RunState | null = start?.body ?? null;
  let versions = { version: start?.version ?? 0, stateVersion: start?.stateVersion ?? 0 };
  for (const e of events) {
    // `previous` below the version cannot happen with appends guarded by the subject's last sequence;
    // folding such an event anyway keeps a run from stalling on data written some other way.
    if (e.previous !== null && e.previous > versions.version && e.previous > acceptedUpTo) {
      return { state, ...versions, missing: e.previous };
    }
    state = evolve(state, e.event);
    versions = advanceVersions(versions, e);
  }
  return { state, ...versions, missing: null };
}

interface StoredRow {
  readonly version: number;
  readonly stateVersion: number;
  readonly body: RunState;
}

async function rowsOf(tx: EntityManager, runIds: readonly string[]): Promise<Map<string, StoredRow>> {
  const rows: { id: string; version: string; state_version: string; body: RunState }[] = await tx.query(
    `SELECT id, version, ${STATE_VERSION_SQL}, body FROM runs WHERE id = ANY($1::uuid[])`,
    [runIds],
  );
  return new Map(rows.map((row) => [row.id, { version: Number(row.version), stateVersion: Number(row.state_version), body: row.body }]));
}

/** Each run's stored events above a version (all of them for a null start), in sequence order. */
async function eventsAfter(
  tx: EntityManager,
  from: ReadonlyMap<string, { version: number } | null>,
): Promise<Map<string, StoredEvent[]>> {
  const byRun = new Map<string, StoredEvent[]>();
  if (from.size === 0) {
    return byRun;
  }
  const rows: { run_id: string; seq: string; previous: string | null; event: RunEvent }[] = await tx.query(
    `SELECT e.run_id, e.seq, e.previous, e.event
     FROM unnest($1::uuid[], $2::bigint[]) AS f(run_id, after)
     JOIN run_events e ON e.run_id = f.run_id AND e.seq > f.after
     ORDER BY e.run_id, e.seq`,
    [[...from.keys()], [...from.values()].map((start) => start?.version ?? 0)],
  );
  for (const row of rows) {
    const events = byRun.get(row.run_id) ?? [];
    events.push({ seq: Number(row.seq), previous: row.previous === null ? null : Number(row.previous), event: row.event });
    byRun.set(row.run_id, events);
  }
  return byRun;
}

/** Advisory locks in one global order (by key), so two replicas' batches cannot deadlock. */
async function lockRuns(tx: EntityManager, runIds: readonly string[]): Promise<void> {
  await tx.query(
    `SELECT pg_advisory_xact_lock(key) FROM (
       SELECT DISTINCT hashtextextended(id, 0) AS key FROM unnest($1::text[]) AS id ORDER BY key
     ) AS ordered`,
    [runIds],
  );
}

async function upsertRuns(tx: EntityManager, runs: readonly ProjectedRun[]): Promise<void> {
  if (runs.length === 0) {
    return;
  }
  const states = runs.map((r) => r.state as RunState);
  await tx.query(
    `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, state_version, updated_at)
     SELECT id, workspace_id, state, terminal, version, body, created_at, state_version, now()
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::jsonb[], $7::timestamptz[], $8::bigint[])
       AS t(id, workspace_id, state, terminal, version, body, created_at, state_version)
     ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, terminal = EXCLUDED.terminal,
       version = EXCLUDED.version, state_version = EXCLUDED.state_version, body = EXCLUDED.body, updated_at = now()`,
    [
      runs.map((r) => r.runId),
      states.map((s) => s.workspaceId),
      states.map((s) => s.state),
      states.map((s) => isTerminalState(s.state)),
      runs.map((r) => r.version),
      states.map((s) => JSON.stringify(s)),
      states.map((s) => s.createdAt),
      runs.map((r) => r.stateVersion),
    ],
  );
  await insertLabels(tx, states);
}

/**
 * A run's labels as rows of `run_labels` (`GET /runs?label=`'s index). Labels never change after the
 * run's creation: rows already there stay, and a run without labels costs no statement.
 */
async function insertLabels(tx: EntityManager, states: readonly RunState[]): Promise<void> {
  // A row written by hand or by an old tool may lack its workload: it has no labels either.
  const rows = states.flatMap((s) => Object.entries((s.workload as RunState['workload'] | undefined)?.labels ?? {}).map(([key, value]) => ({ s, label: `${key}=${value}` })));
  if (rows.length === 0) {
    return;
  }
  await tx.query(
    `INSERT INTO run_labels (workspace_id, label, created_at, run_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::uuid[]) ON CONFLICT DO NOTHING`,
    [rows.map((r) => r.s.workspaceId), rows.map((r) => r.label), rows.map((r) => r.s.createdAt), rows.map((r) => r.s.runId)],
  );
}
