import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { readRunEventsFrom, runEventOf, type StreamNames, type StreamRunEvent } from '@wrs/messaging';
import { refoldStoredRuns, RunProjection } from '@wrs/projection';
import type { DataSource } from 'typeorm';

export interface RebuildReport {
  /** Events read from the events stream (each projected, or found already stored). */
  readonly events: number;
  /** The stream's last sequence when the replay began: events after it are the workers' to project. */
  readonly throughSeq: number;
  /** Rows folded again from stored events after the replay (rows that were missing or behind). */
  readonly refolded: number;
}

/**
 * Rebuilds runs and run_events from the events stream, then refolds each row that is missing or behind
 * its stored events (events the stream no longer holds survive in run_events, e.g. from a backup).
 * For a restore: restore Postgres, then run this. Safe to run twice and while workers run.
 */
export async function rebuildProjection(nc: NatsConnection, db: DataSource, names: StreamNames, batchSize = 256): Promise<RebuildReport> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(names.eventsStream);
  const throughSeq = info.state.last_seq;
  const projection = new RunProjection(db);
  let events = 0;
  if (info.state.messages > 0) {
    const messages = await readRunEventsFrom(jetstream(nc), jsm, names, 'first');
    let batch: StreamRunEvent[] = [];
    try {
      for await (const m of messages) {
        const event = runEventOf(m);
        if (event) {
          batch.push(event);
        }
        // The last stored event may have been deleted since (delete-runs): nothing pending ends it too.
        const done = m.seq >= throughSeq || m.info.pending === 0;
        if (batch.length >= batchSize || done) {
          await projection.projectBatch(batch);
          events += batch.length;
          batch = [];
        }
        if (done) {
          break;
        }
      }
    } finally {
      await messages.close();
    }
  }
  const refolded = await refoldStoredRuns(db);
  return { events, throughSeq, refolded };
}
