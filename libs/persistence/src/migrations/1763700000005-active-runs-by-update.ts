import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The reconciler's sweep reads unfinished runs least recently changed first, every 200 ms. */
export class ActiveRunsByUpdate1763700000005 implements MigrationInterface {
  name = 'ActiveRunsByUpdate1763700000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX runs_active_by_update ON runs (updated_at) WHERE NOT terminal`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_active_by_update`);
  }
}
