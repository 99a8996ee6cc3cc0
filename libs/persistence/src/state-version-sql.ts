/**
 * A row's state version in a SELECT on `runs`: the stored one, or, for a row a worker of the previous
 * version wrote during a rolling upgrade (null, see migration 1763700000006), its last stored event
 * but a log line up to the row's version. COALESCE runs the query only then.
 */
export const STATE_VERSION_SQL = `COALESCE(runs.state_version,
  (SELECT max(e.seq) FROM run_events e WHERE e.run_id = runs.id AND e.seq <= runs.version AND e.type <> 'run.log'),
  runs.version) AS state_version`;
