/**
 * How the worker takes events for the projection: up to 256 in one transaction, and a smaller batch
 * waits until its oldest event is 10 ms old. A transaction's commit costs Postgres about as much as 30
 * events, so at a few hundred events/s one transaction per event or two was most of its CPU per run.
 * In a backlog two full batches are in hand at once, never with events of the same run in both (one
 * subject per run): the next batch is decoded and sent while the previous one is written and committed.
 */
export const PROJECTION_BATCHING = { maxBatch: 256, lingerMs: 10, concurrency: 2 } as const;
