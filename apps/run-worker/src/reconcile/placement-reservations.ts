import type { RunQueries } from '@wrs/persistence';
import type { PlaceLoads } from './step-context';

/**
 * Placements this worker made that the load counts from Postgres may not include yet, since the
 * projection lags by milliseconds. Each counts until a load query started after its projection returns.
 * Per worker only: replicas placing at once can still exceed a capacity by a few.
 */
export class PlacementReservations {
  private readonly byRun = new Map<string, { readonly place: string; projectedAtMs: number | null }>();

  reserve(runId: string, place: string): void {
    this.byRun.set(runId, { place, projectedAtMs: null });
  }

  release(runId: string): void {
    this.byRun.delete(runId);
  }

  /** The projection has the run at its place now. */
  projected(runId: string, nowMs: number): void {
    const entry = this.byRun.get(runId);
    if (entry && entry.projectedAtMs === null) {
      entry.projectedAtMs = nowMs;
    }
  }

  /** How many runs to add to `place`'s count from a query begun at `queriedAtMs`. */
  extra(place: string, queriedAtMs: number): number {
    let count = 0;
    for (const entry of this.byRun.values()) {
      if (entry.place === place && (entry.projectedAtMs === null || entry.projectedAtMs >= queriedAtMs)) {
        count++;
      }
    }
    return count;
  }

  /** Drops what a query begun at `queriedAtMs` counted itself. */
  prune(queriedAtMs: number): void {
    for (const [runId, entry] of this.byRun) {
      if (entry.projectedAtMs !== null && entry.projectedAtMs < queriedAtMs) {
        this.byRun.delete(runId);
      }
    }
  }
}

/**
 * The load per placement, one query for every dispatch that asks while it is in flight: a sweep
 * dispatches hundreds of runs at once, and each asking on its own made the count (a scan of every
 * unfinished run) the worker's largest database cost. Reservations the query has counted are dropped.
 *
 * A result begun less than `maxAgeMs` ago is used again: runs poked one at a time (the projection's
 * pokes, 100 runs/s) each made a query of their own. An older result misses nothing this worker placed
 * since (its reservations count from the query's start); it only still counts runs that have ended
 * since, so it can over-count a place (a run waits, and the next drive asks again), never under-count.
 */
export class PlaceLoadReader {
  private inFlight: Promise<PlaceLoads> | undefined;
  private last: PlaceLoads | undefined;

  constructor(
    private readonly queries: Pick<RunQueries, 'placedCounts'>,
    private readonly reservations: PlacementReservations,
    private readonly nowMs: () => number,
    private readonly maxAgeMs = PLACE_LOADS_MAX_AGE_MS,
  ) {}

  read(): Promise<PlaceLoads> {
    const last = this.last;
    if (last && this.nowMs() - last.queriedAtMs < this.maxAgeMs) {
      return Promise.resolve(last);
    }
    this.inFlight ??= this.query().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async query(): Promise<PlaceLoads> {
    const queriedAtMs = this.nowMs();
    const counts = await this.queries.placedCounts();
    this.reservations.prune(queriedAtMs);
    this.last = { counts, queriedAtMs };
    return this.last;
  }
}

/** How long a load count is used again (see PlaceLoadReader). */
export const PLACE_LOADS_MAX_AGE_MS = 100;
