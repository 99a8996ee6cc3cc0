import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /runs?label=key=value`: a GIN index of the labels in the run's JSON body (`jsonb_path_ops`,
 * which serves `@>` containment and is a fraction of the default operator class's size). A rare label
 * is found through it; a common one is found faster by walking the list's own index, and the planner
 * chooses by the statistics ANALYZE keeps for the indexed expression. Built in the migration's
 * transaction: on a million runs it holds the projection's writes for seconds (measured: 2.6 s), which
 * wait and lose nothing.
 */
export class RunLabelsIndex1763700000007 implements MigrationInterface {
  name = 'RunLabelsIndex1763700000007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX runs_labels ON runs USING gin ((body->'workload'->'labels') jsonb_path_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_labels`);
  }
}
