import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `runs_active_by_update` (1763700000005) repeated `runs_active` (the initial schema) exactly:
 * `(updated_at) WHERE NOT terminal`. Every write of an unfinished run maintained both; one serves the
 * reconciler's sweep as well. `runs_active` is kept (made again if a database lacks it).
 * CONCURRENTLY, outside a transaction: with runs in flight, a plain CREATE or DROP INDEX would hold
 * every projection write behind the longest open transaction on `runs`.
 */
export class OneActiveRunsIndex1763700000009 implements MigrationInterface {
  name = 'OneActiveRunsIndex1763700000009';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_active ON runs (updated_at) WHERE NOT terminal`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS runs_active_by_update`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_active_by_update ON runs (updated_at) WHERE NOT terminal`);
  }
}
