/**
 * How the worker takes events for the projection: up to 256 in one transaction, and a smaller batch
 * waits until its oldest event is 10 ms old. A transaction's commit costs Postgres about as much as 30
 * events, so at a few hundred events/s one transaction per event or two was most of its CPU per run.
 */
export const PROJECTION_BATCHING = { maxBatch: 256, lingerMs: 10 } as const;
