import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { StreamNames } from '@wrs/messaging';
import type { DataSource } from 'typeorm';

export interface DeleteRunsOptions {
  readonly workspaceId: string;
  /** Only runs that finished (succeeded, failed, canceled) before this time; running ones never. */
  readonly finishedBefore: Date;
  /** Count what would be deleted, delete nothing. */
  readonly dryRun: boolean;
  readonly pageSize?: number;
}

export interface DeleteRunsReport {
  readonly workspaceId: string;
  readonly finishedBefore: string;
  readonly dryRun: boolean;
  readonly runs: number;
  /** Events removed from the events stream. */
  readonly events: number;
}

/**
 * Deletes a workspace's finished runs: each run's events from JetStream first (its subject purged),
 * then its stored events and row from Postgres. In that order, so a run is never left whose events a
 * projection rebuild would bring back; a run interrupted half way is found and finished by the next
 * invocation (its row is still there).
 */
export async function deleteRuns(
  nc: NatsConnection,
  db: DataSource,
  names: StreamNames,
  options: DeleteRunsOptions,
): Promise<DeleteRunsReport> {
  const jsm = await jetstreamManager(nc);
  const pageSize = options.pageSize ?? 500;
  let runs = 0;
  let events = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const page: { id: string }[] = await db.query(
      `SELECT id FROM runs
       WHERE workspace_id = $1 AND terminal AND (body->>'finishedAt')::timestamptz < $2 AND id > $3
       ORDER BY id LIMIT $4`,
      [options.workspaceId, options.finishedBefore.toISOString(), after, pageSize],
    );
    if (!options.dryRun) {
      for (const { id } of page) {
        const purged = await jsm.streams.purge(names.eventsStream, { filter: names.runEvents(options.workspaceId, id) });
        events += purged.purged;
        await db.transaction(async (tx) => {
          await tx.query('DELETE FROM run_events WHERE run_id = $1', [id]);
          await tx.query('DELETE FROM runs WHERE id = $1', [id]);
        });
      }
    }
    runs += page.length;
    if (page.length < pageSize) {
      break;
    }
    after = page[page.length - 1]!.id;
  }
  return { workspaceId: options.workspaceId, finishedBefore: options.finishedBefore.toISOString(), dryRun: options.dryRun, runs, events };
}
