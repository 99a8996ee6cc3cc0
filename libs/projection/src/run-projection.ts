import { advanceVersions, evolve, type RunEvent, type RunState } from '@wrs/domain';
import type { DataSource } from 'typeorm';
import { inTransaction } from './projection-sql';
import { PROJECTION_PLANNING } from './projection-planning';
import {
  eventsAfter,
  lockRuns,
  rowsOf,
  storeAndRead,
  writeRuns,
  type NewEvent,
  type StoredEvent,
  type StoredRow,
} from './run-projection-store';

export interface ProjectionResult {
  /** The run's state after this event, or null while its creation event has not arrived. */
  readonly state: RunState | null;
  readonly version: number;
  /** The sequence of the last state-changing event folded in (not a log line). */
  readonly stateVersion: number;
  /** False when the event had been projected before (a redelivery). */
  readonly applied: boolean;
}

export interface DeliveredEvent {
  readonly runId: string;
  readonly seq: number;
  /**
   * The sequence of the run's previous event (0 for its first), as the message says; null or absent
   * when unknown, and then the event is taken to follow whatever came before it.
   */
  readonly previous?: number | null;
  readonly event: RunEvent;
}

export interface ProjectedRun {
  readonly runId: string;
  /** The run's state after the batch, or null while its creation event has not arrived. */
  readonly state: RunState | null;
  readonly version: number;
  /** The sequence of the last state-changing event folded in (not a log line): the run's ETag. */
  readonly stateVersion: number;
  /** The sequences of the batch's events of this run that were new (not redeliveries). */
  readonly appliedSeqs: readonly number[];
  /**
   * The sequence of an event the run's chain lacks: stored events name it as their previous one, but
   * it has not been delivered (yet). The row stops before it; null when the chain has no hole.
   */
  readonly missing: number | null;
}

/**
 * Projects events into Postgres. A run's events are kept, and its row is the fold of the longest
 * unbroken chain of them from its first event (each event names its previous one), under a per-run lock,
 * in one transaction. So the row is correct whatever order and however often events are delivered, no
 * replica can regress it, and a row at version V has folded every event of the run up to V: a client
 * that reads it and then follows the events from V misses none (found by the chaos run: an event whose
 * delivery was lost to a NATS fault came 30 s later, and a row that had folded past it was wrong).
 *
 * A batch is one transaction of a fixed number of statements whatever its size or how many runs it
 * touches (lock; store the events and read the rows; write the rows and labels), folded in memory:
 * the events it stores are not read back.
 */
export class RunProjection {
  constructor(private readonly db: DataSource) {}

  async project(runId: string, seq: number, event: RunEvent, previous: number | null = null): Promise<ProjectionResult> {
    const [run] = await this.projectBatch([{ runId, seq, event, previous }]);
    return {
      state: run?.state ?? null,
      version: run?.version ?? 0,
      stateVersion: run?.stateVersion ?? 0,
      applied: run?.appliedSeqs.includes(seq) ?? false,
    };
  }

  /**
   * Folds a run on across the hole its chain stops at: for events JetStream no longer holds (retention
   * or purge), which no delivery will ever fill.
   */
  async foldAcrossHole(runId: string): Promise<ProjectedRun | null> {
    return inTransaction(this.db, PROJECTION_PLANNING, async (sql) => {
      await lockRuns(sql, [runId]);
      const row = (await rowsOf(sql, [runId])).get(runId) ?? null;
      const stored = await eventsAfter(sql, new Map([[runId, row]]));
      const chain = foldChain(row, stored.get(runId) ?? [], Number.POSITIVE_INFINITY);
      if (!chain.state || chain.version === row?.version) {
        return null;
      }
      const projected: ProjectedRun = { runId, ...chain, appliedSeqs: [] };
      await writeRuns(sql, [projected]);
      return projected;
    });
  }

  async projectBatch(delivered: readonly DeliveredEvent[]): Promise<ProjectedRun[]> {
    if (delivered.length === 0) {
      return [];
    }
    const runIds = [...new Set(delivered.map((d) => d.runId))];
    const events = delivered.map((d): NewEvent => ({ runId: d.runId, seq: d.seq, previous: d.previous ?? null, event: d.event }));
    return inTransaction(this.db, PROJECTION_PLANNING, async (sql) => {
      await lockRuns(sql, runIds);
      const { applied, rows, storedAbove } = await storeAndRead(sql, runIds, events);
      // A row folds its chain up to its version, so the chain goes on from there; an event stored at or
      // below it (one without a known previous, delivered late) means folding from the start again.
      const from = new Map(
        [...applied.keys()].map((runId) => {
          const row = rows.get(runId);
          const late = !row || Math.min(...applied.get(runId)!) <= row.version;
          return [runId, late ? null : row] as const;
        }),
      );
      // Only a late event under a row needs the run's whole history; otherwise the chain is what was
      // stored above the row and what this batch stored.
      const refolded = await eventsAfter(sql, new Map([...from].filter(([runId, start]) => start === null && rows.has(runId))));
      const stored = (runId: string): readonly StoredEvent[] =>
        refolded.get(runId) ?? bySeq([...(storedAbove.get(runId) ?? []), ...newlyStored(events, runId, applied.get(runId) ?? [])]);
      const projected = runIds.map((runId): ProjectedRun => {
        const seqs = applied.get(runId) ?? [];
        const row = rows.get(runId);
        if (seqs.length === 0) {
          return {
            runId,
            state: row?.body ?? null,
            version: row?.version ?? 0,
            stateVersion: row?.stateVersion ?? 0,
            appliedSeqs: seqs,
            missing: null,
          };
        }
        const start = from.get(runId) ?? null;
        const chain = foldChain(start, stored(runId), start ? 0 : (row?.version ?? 0));
        return { runId, ...chain, appliedSeqs: seqs };
      });
      // A chain that did not get past its row (a hole right after it) leaves the row as it is.
      const changed = projected.filter((p) => {
        const start = from.get(p.runId);
        return p.state !== null && p.appliedSeqs.length > 0 && !(start && p.version === start.version);
      });
      await writeRuns(sql, changed);
      return projected;
    });
  }
}

/** The batch's events of a run that the store took as new: the first delivery of each sequence. */
function newlyStored(events: readonly NewEvent[], runId: string, seqs: readonly number[]): StoredEvent[] {
  const wanted = new Set(seqs);
  return events.filter((e) => e.runId === runId && wanted.delete(e.seq));
}

function bySeq(events: StoredEvent[]): StoredEvent[] {
  return events.sort((a, b) => a.seq - b.seq);
}

/**
 * Folds stored events onto a row along the chain: each event must name the one before it. It stops at
 * a hole (an event naming a previous one that is not there) unless the hole lies at or below
 * `acceptedUpTo`: holes a row has already been folded across (a refold from the start must not fall
 * back behind them), or every hole when told no delivery will fill them.
 */
function foldChain(
  start: StoredRow | null,
  events: readonly StoredEvent[],
  acceptedUpTo: number,
): { state: RunState | null; version: number; stateVersion: number; missing: number | null } {
  let state: RunState | null = start?.body ?? null;
  let versions = { version: start?.version ?? 0, stateVersion: start?.stateVersion ?? 0 };
  for (const e of events) {
    // `previous` below the version cannot happen with appends guarded by the subject's last sequence;
    // folding such an event anyway keeps a run from stalling on data written some other way.
    if (e.previous !== null && e.previous > versions.version && e.previous > acceptedUpTo) {
      return { state, ...versions, missing: e.previous };
    }
    state = evolve(state, e.event);
    versions = advanceVersions(versions, e);
  }
  return { state, ...versions, missing: null };
}
