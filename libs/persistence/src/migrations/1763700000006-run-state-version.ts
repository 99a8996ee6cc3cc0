import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each run row keeps the sequence of its last state-changing event (every event but `run.log`): the
 * run's `version` and ETag, so a log line does not make a client's `If-Match` stale. Existing rows
 * take it from their stored events, up to the version the row has folded.
 */
export class RunStateVersion1763700000006 implements MigrationInterface {
  name = 'RunStateVersion1763700000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN state_version bigint NULL`);
    await q.query(
      `UPDATE runs r SET state_version = COALESCE(
         (SELECT max(e.seq) FROM run_events e WHERE e.run_id = r.id AND e.seq <= r.version AND e.type <> 'run.log'),
         r.version)`,
    );
    await q.query(`ALTER TABLE runs ALTER COLUMN state_version SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN state_version`);
  }
}
