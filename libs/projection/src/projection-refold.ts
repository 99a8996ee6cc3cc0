import type { DataSource } from 'typeorm';
import { RunProjection } from './run-projection';

/**
 * Folds every run whose stored events reach past its row (or that has no row: a restore, or rows
 * deleted to rebuild them) into its row again, across any hole left in its chain. Meant to follow a
 * full replay of the events stream: a hole that replay did not fill is one JetStream no longer holds.
 * Returns how many rows it wrote.
 */
export async function refoldStoredRuns(db: DataSource, pageSize = 500): Promise<number> {
  const projection = new RunProjection(db);
  let written = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const page: { run_id: string }[] = await db.query(
      `SELECT e.run_id FROM run_events e LEFT JOIN runs r ON r.id = e.run_id
       WHERE e.run_id > $1
       GROUP BY e.run_id, r.version
       HAVING r.version IS NULL OR max(e.seq) > r.version
       ORDER BY e.run_id LIMIT $2`,
      [after, pageSize],
    );
    for (const { run_id } of page) {
      if (await projection.foldAcrossHole(run_id)) {
        written++;
      }
    }
    if (page.length < pageSize) {
      return written;
    }
    after = page[page.length - 1]!.run_id;
  }
}
