import { evolve, fold, isTerminalState, type RunEvent, type RunState } from '@wrs/domain';
import type { DataSource, EntityManager } from 'typeorm';

export interface ProjectionResult {
  /** The run's state after this event, or null while its creation event has not arrived. */
  readonly state: RunState | null;
  readonly version: number;
  /** False when the event had been projected before (a redelivery). */
  readonly applied: boolean;
}

export interface DeliveredEvent {
  readonly runId: string;
  readonly seq: number;
  readonly event: RunEvent;
}

export interface ProjectedRun {
  readonly runId: string;
  /** The run's state after the batch, or null while its creation event has not arrived. */
  readonly state: RunState | null;
  readonly version: number;
  /** The sequences of the batch's events of this run that were new (not redeliveries). */
  readonly appliedSeqs: readonly number[];
}

/**
 * Projects events into Postgres. A run's events are kept and re-folded in sequence order under a
 * per-run lock, in one transaction, so the row is correct whatever order and however often events are
 * delivered: derived state stays a pure fold of the events, and no replica can regress it.
 *
 * A batch costs a fixed number of statements whatever its size (insert, lock, read, upsert), so a
 * backlog is caught up at the rate Postgres takes rows, not at one transaction per event.
 */
export class RunProjection {
  constructor(private readonly db: DataSource) {}

  async project(runId: string, seq: number, event: RunEvent): Promise<ProjectionResult> {
    const [run] = await this.projectBatch([{ runId, seq, event }]);
    return { state: run?.state ?? null, version: run?.version ?? 0, applied: run?.appliedSeqs.includes(seq) ?? false };
  }

  async projectBatch(delivered: readonly DeliveredEvent[]): Promise<ProjectedRun[]> {
    if (delivered.length === 0) {
      return [];
    }
    return this.db.transaction(async (tx) => {
      const runIds = [...new Set(delivered.map((d) => d.runId))];
      await lockRuns(tx, runIds);
      const inserted: { run_id: string; seq: string }[] = await tx.query(
        `INSERT INTO run_events (run_id, seq, type, event)
         SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::jsonb[])
         ON CONFLICT DO NOTHING RETURNING run_id, seq`,
        [
          delivered.map((d) => d.runId),
          delivered.map((d) => d.seq),
          delivered.map((d) => d.event.type),
          delivered.map((d) => JSON.stringify(d.event)),
        ],
      );
      const applied = new Map<string, number[]>();
      for (const row of inserted) {
        applied.set(row.run_id, [...(applied.get(row.run_id) ?? []), Number(row.seq)]);
      }
      const current = new Map<string, { version: number; body: RunState }>();
      const rows: { id: string; version: string; body: RunState }[] = await tx.query(
        'SELECT id, version, body FROM runs WHERE id = ANY($1::uuid[])',
        [runIds],
      );
      for (const row of rows) {
        current.set(row.id, { version: Number(row.version), body: row.body });
      }
      // The row folds every event up to its version. New events all above it extend that fold; one
      // below it (a late delivery) means folding the run's events again from the start.
      const refold = runIds.filter((id) => {
        const seqs = applied.get(id) ?? [];
        const row = current.get(id);
        return seqs.length > 0 && (!row || Math.min(...seqs) <= row.version);
      });
      const stored = await eventsOf(tx, refold);
      const projected = runIds.map((runId): ProjectedRun => {
        const seqs = applied.get(runId) ?? [];
        const row = current.get(runId);
        if (refold.includes(runId)) {
          const events = stored.get(runId) ?? [];
          return { runId, state: fold(events.map((e) => e.event)), version: events[events.length - 1]?.seq ?? 0, appliedSeqs: seqs };
        }
        if (seqs.length === 0) {
          return { runId, state: row?.body ?? null, version: row?.version ?? 0, appliedSeqs: seqs };
        }
        const fresh = newEvents(delivered, runId, seqs);
        return {
          runId,
          state: fresh.reduce<RunState | null>((state, e) => evolve(state, e.event), row!.body),
          version: fresh[fresh.length - 1]!.seq,
          appliedSeqs: seqs,
        };
      });
      // No version guard: under the lock the fold covers every event committed so far, so it is
      // always the newest truth, also when a late event lands below the highest sequence seen.
      await upsertRuns(tx, projected.filter((p) => p.state !== null && p.appliedSeqs.length > 0));
      return projected;
    });
  }
}

/** The delivered events of a run with these (newly stored) sequences, in sequence order, once each. */
function newEvents(delivered: readonly DeliveredEvent[], runId: string, seqs: readonly number[]): DeliveredEvent[] {
  const bySeq = new Map(delivered.filter((d) => d.runId === runId && seqs.includes(d.seq)).map((d) => [d.seq, d]));
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

async function eventsOf(tx: EntityManager, runIds: readonly string[]): Promise<Map<string, { seq: number; event: RunEvent }[]>> {
  const byRun = new Map<string, { seq: number; event: RunEvent }[]>();
  if (runIds.length === 0) {
    return byRun;
  }
  const rows: { run_id: string; seq: string; event: RunEvent }[] = await tx.query(
    'SELECT run_id, seq, event FROM run_events WHERE run_id = ANY($1::uuid[]) ORDER BY run_id, seq',
    [runIds],
  );
  for (const row of rows) {
    byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), { seq: Number(row.seq), event: row.event }]);
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
    `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at)
     SELECT id, workspace_id, state, terminal, version, body, created_at, now()
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::jsonb[], $7::timestamptz[])
       AS t(id, workspace_id, state, terminal, version, body, created_at)
     ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, terminal = EXCLUDED.terminal,
       version = EXCLUDED.version, body = EXCLUDED.body, updated_at = now()`,
    [
      runs.map((r) => r.runId),
      states.map((s) => s.workspaceId),
      states.map((s) => s.state),
      states.map((s) => isTerminalState(s.state)),
      runs.map((r) => r.version),
      states.map((s) => JSON.stringify(s)),
      states.map((s) => s.createdAt),
    ],
  );
}
