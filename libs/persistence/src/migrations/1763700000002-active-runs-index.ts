import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ActiveRunsIndex1763700000002 implements MigrationInterface {
  name = 'ActiveRunsIndex1763700000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX runs_workspace_active ON runs (workspace_id) WHERE NOT terminal`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_workspace_active`);
  }
}
