import { fold, isTerminalState, type RunEvent, type RunState } from '@wrs/domain';
import type { DataSource } from 'typeorm';

export interface ProjectionResult {
  /** The run's state after this event, or null while its creation event has not arrived. */
  readonly state: RunState | null;
  readonly version: number;
  /** False when the event had been projected before (a redelivery). */
  readonly applied: boolean;
}

/**
 * Projects one event into Postgres. The run's events are kept and re-folded in sequence order under a
 * per-run lock, in one transaction, so the row is correct whatever order and however often events are
 * delivered: derived state stays a pure fold of the events, and no replica can regress it.
 */
export class RunProjection {
  constructor(private readonly db: DataSource) {}

  async project(runId: string, seq: number, event: RunEvent): Promise<ProjectionResult> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [runId]);
      const inserted: unknown[] = await tx.query(
        `INSERT INTO run_events (run_id, seq, type, event) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING seq`,
        [runId, seq, event.type, JSON.stringify(event)],
      );
      const applied = inserted.length > 0;
      const rows: { seq: string; event: RunEvent }[] = await tx.query(
        'SELECT seq, event FROM run_events WHERE run_id = $1 ORDER BY seq',
        [runId],
      );
      const state = fold(rows.map((r) => r.event));
      const version = Number(rows[rows.length - 1]?.seq ?? 0);
      // No version guard: under the lock the fold covers every event committed so far, so it is
      // always the newest truth, also when a late event lands below the highest sequence seen.
      if (state && applied) {
        await tx.query(
          `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, now())
           ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, terminal = EXCLUDED.terminal,
             version = EXCLUDED.version, body = EXCLUDED.body, updated_at = now()`,
          [runId, state.workspaceId, state.state, isTerminalState(state.state), version, JSON.stringify(state), state.createdAt],
        );
      }
      return { state, version, applied };
    });
  }
}
