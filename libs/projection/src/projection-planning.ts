/**
 * How Postgres plans the projection's statements, in its transactions only: once per connection, the
 * plan kept (no planning per batch), and made of index probes whatever the statistics said when it was
 * made (docs/performance.md, "2026-11-27 14:00 UTC").
 */
export const PROJECTION_PLANNING: readonly string[] = ['plan_cache_mode = force_generic_plan', 'enable_seqscan = off'];
