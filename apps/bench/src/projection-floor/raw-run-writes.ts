import { advanceVersions, evolve, isTerminalState, NO_VERSIONS, type RunState, type RunVersions } from '@wrs/domain';
import { inTransaction, type DeliveredEvent, type Statement } from '@wrs/projection';
import type { DataSource } from 'typeorm';

/** What the raw writer stores of a batch: what the projection stores, or less of it. */
export type RawWrites = 'events-and-rows' | 'rows' | 'rows-pk-only';

/** The copy of `runs` with its primary key and nothing else: the essential program's kind of table. */
export const PK_ONLY_TABLE = 'runs_pk_only';

export const CREATE_PK_ONLY_TABLE = `CREATE TABLE ${PK_ONLY_TABLE} (id uuid PRIMARY KEY, workspace_id text NOT NULL, state text NOT NULL,
  terminal boolean NOT NULL, version bigint NOT NULL, body jsonb NOT NULL, created_at timestamptz NOT NULL,
  state_version bigint, updated_at timestamptz NOT NULL)`;

const STORE_EVENTS: Statement = {
  name: 'bench_floor_store_events',
  text: `INSERT INTO run_events (run_id, seq, previous, type, event)
         SELECT run_id, seq, previous, type, event
           FROM jsonb_to_recordset($1::jsonb) AS t(run_id uuid, seq bigint, previous bigint, type text, event jsonb)
         ON CONFLICT DO NOTHING`,
};

/** The projection's upsert of `runs` (WRITE_RUNS) without its labels, into `table`: a copy, so the floor stays put. */
function upsertInto(table: string): Statement {
  return {
    name: `bench_floor_upsert_${table}`,
    text: `INSERT INTO ${table} (id, workspace_id, state, terminal, version, body, created_at, state_version, updated_at)
           SELECT id, workspace_id, state, terminal, version, body, created_at, state_version, now()
           FROM jsonb_to_recordset($1::jsonb) AS t(id uuid, workspace_id text, state text, terminal boolean, version bigint,
             body jsonb, created_at timestamptz, state_version bigint)
           ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, terminal = EXCLUDED.terminal, version = EXCLUDED.version,
             state_version = EXCLUDED.state_version, body = EXCLUDED.body, updated_at = now()`,
  };
}

/**
 * The projection's writes and nothing else: each batch's events and the runs' rows as the projection
 * writes them, in one transaction of plain multi-row statements, folded in memory from what this
 * writer saw (no lock, nothing read back, no check of the chain). Not safe beside another writer or
 * under redelivery: a floor to measure the projection against, never a projection.
 */
export class RawRunWrites {
  private readonly folded = new Map<string, { state: RunState; versions: RunVersions }>();
  private readonly upsert: Statement;

  constructor(
    private readonly db: DataSource,
    private readonly writes: RawWrites,
  ) {
    this.upsert = upsertInto(writes === 'rows-pk-only' ? PK_ONLY_TABLE : 'runs');
  }

  async write(batch: readonly DeliveredEvent[]): Promise<void> {
    const changed = new Map<string, { state: RunState; versions: RunVersions }>();
    for (const delivered of batch) {
      const current = this.folded.get(delivered.runId);
      const state = evolve(current?.state ?? null, delivered.event);
      if (!state) {
        continue;
      }
      const next = { state, versions: advanceVersions(current?.versions ?? NO_VERSIONS, delivered) };
      this.folded.set(delivered.runId, next);
      changed.set(delivered.runId, next);
      if (isTerminalState(state.state)) {
        this.folded.delete(delivered.runId);
      }
    }
    await inTransaction(this.db, [], async (sql) => {
      if (this.writes === 'events-and-rows') {
        await sql.run(STORE_EVENTS, [
          JSON.stringify(
            batch.map((e) => ({ run_id: e.runId, seq: e.seq, previous: e.previous ?? null, type: e.event.type, event: e.event })),
          ),
        ]);
      }
      await sql.run(this.upsert, [
        JSON.stringify(
          [...changed].map(([id, { state, versions }]) => ({
            id,
            workspace_id: state.workspaceId,
            state: state.state,
            terminal: isTerminalState(state.state),
            version: versions.version,
            body: state,
            created_at: state.createdAt,
            state_version: versions.stateVersion,
          })),
        ),
      ]);
    });
  }
}
