import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /runs?label=key=value`: one row per run and label, indexed in the list's order, so a filtered page
 * costs about a page of index entries however many runs carry the label (a GIN index on the body was
 * 20-67 ms p99 for a rare label in a million runs). Labels never change, so the projection only inserts.
 * Existing runs' labels are copied here, with the projection's writes held meanwhile.
 */
export class RunLabels1763700000007 implements MigrationInterface {
  name = 'RunLabels1763700000007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE run_labels (
      workspace_id text NOT NULL,
      label text NOT NULL,
      created_at timestamptz NOT NULL,
      run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
      PRIMARY KEY (workspace_id, label, created_at, run_id)
    )`);
    // A run's other labels, one probe each, while the list walks one label's entries; and the cascade.
    await q.query(`CREATE INDEX run_labels_run ON run_labels (run_id, label)`);
    await q.query(
      `INSERT INTO run_labels (workspace_id, label, created_at, run_id)
       SELECT runs.workspace_id, l.key || '=' || l.value, runs.created_at, runs.id
       FROM runs, jsonb_each_text(CASE WHEN jsonb_typeof(body->'workload'->'labels') = 'object' THEN body->'workload'->'labels' ELSE '{}'::jsonb END) AS l`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE run_labels`);
  }
}
