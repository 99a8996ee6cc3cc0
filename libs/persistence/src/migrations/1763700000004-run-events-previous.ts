import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each stored event keeps the sequence of the run's previous event, so the projection can tell a hole
 * in a run's chain (an event not delivered yet) and fold only up to it. Null for events stored before.
 */
export class RunEventsPrevious1763700000004 implements MigrationInterface {
  name = 'RunEventsPrevious1763700000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE run_events ADD COLUMN previous bigint NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE run_events DROP COLUMN previous`);
  }
}
