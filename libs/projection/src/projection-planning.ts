/**
 * How Postgres plans the projection's statements, for its transactions only: one plan per connection,
 * kept (not planned again for each batch, about a tenth of the projection's Postgres CPU), and that plan
 * made of index probes. Each run is looked up on its own in the statements (lateral subqueries), and
 * with sequential scans ruled out a plan kept from a table's first minutes, when its statistics say a
 * few rows, still probes the index once the table is large (docs/performance.md, "2026-11-27 14:00 UTC").
 */
export const PROJECTION_PLANNING: readonly string[] = ['plan_cache_mode = force_generic_plan', 'enable_seqscan = off'];
