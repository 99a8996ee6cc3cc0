import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each run row keeps the sequence of its last event other than `run.log`: the run's ETag, so a log line
 * does not make a client's `If-Match` stale. Existing rows take it from their stored events.
 * Rows an older worker writes during a rolling upgrade leave it null (the trigger sees to updates), and
 * readers then compute it (`state-version-sql.ts`). The next version drops the trigger and makes it NOT NULL.
 */
export class RunStateVersion1763700000006 implements MigrationInterface {
  name = 'RunStateVersion1763700000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN state_version bigint NULL`);
    await q.query(
      `UPDATE runs SET state_version = COALESCE(
         (SELECT max(e.seq) FROM run_events e WHERE e.run_id = runs.id AND e.seq <= runs.version AND e.type <> 'run.log'),
         runs.version)`,
    );
    // Only a writer that does not know the column changes the state (the body but its log count) and
    // the version while leaving state_version as it was: this version's projection moves it with every state change.
    await q.query(
      `CREATE FUNCTION runs_state_version_guard() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.version IS DISTINCT FROM OLD.version AND NEW.state_version IS NOT DISTINCT FROM OLD.state_version
            AND (NEW.body - 'logLines') IS DISTINCT FROM (OLD.body - 'logLines') THEN
           NEW.state_version := NULL;
         END IF;
         RETURN NEW;
       END $$`,
    );
    await q.query(`CREATE TRIGGER runs_state_version_guard BEFORE UPDATE ON runs FOR EACH ROW EXECUTE FUNCTION runs_state_version_guard()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER runs_state_version_guard ON runs`);
    await q.query(`DROP FUNCTION runs_state_version_guard()`);
    await q.query(`ALTER TABLE runs DROP COLUMN state_version`);
  }
}
