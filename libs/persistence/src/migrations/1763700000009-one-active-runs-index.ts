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
    // A concurrent build waits for every older transaction, which counts against migrate's lock_timeout;
    // it blocks no writer, so it may wait as long as it needs. A build cut short before leaves an
    // INVALID index that IF NOT EXISTS would keep: made again.
    await q.query(`SET lock_timeout = 0`);
    try {
      await dropIfInvalid(q, 'runs_active');
      await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_active ON runs (updated_at) WHERE NOT terminal`);
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS runs_active_by_update`);
    } finally {
      await q.query(`RESET lock_timeout`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_active_by_update ON runs (updated_at) WHERE NOT terminal`);
  }
}

async function dropIfInvalid(q: QueryRunner, index: string): Promise<void> {
  const invalid = (await q.query(
    `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid`,
    [index],
  )) as unknown[];
  if (invalid.length > 0) {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
  }
}
