import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for GET /runs: newest first by (created_at, id), replacing the (workspace_id, created_at)
 * index; the same per state, so filtering on a rare state does not walk the workspace; and a lookup by
 * Idempotency-Key, which lives in the run's JSON body.
 */
export class RunsListIndexes1763700000003 implements MigrationInterface {
  name = 'RunsListIndexes1763700000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX runs_workspace_created_id ON runs (workspace_id, created_at DESC, id DESC)`);
    await q.query(`DROP INDEX runs_workspace_created`);
    await q.query(`CREATE INDEX runs_workspace_state_created_id ON runs (workspace_id, state, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX runs_workspace_idempotency_key ON runs (workspace_id, (body->>'idempotencyKey'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_workspace_idempotency_key`);
    await q.query(`DROP INDEX runs_workspace_state_created_id`);
    await q.query(`CREATE INDEX runs_workspace_created ON runs (workspace_id, created_at DESC)`);
    await q.query(`DROP INDEX runs_workspace_created_id`);
  }
}
