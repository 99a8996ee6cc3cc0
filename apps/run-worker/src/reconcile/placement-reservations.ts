import type { RunQueries } from '@wrs/persistence';
import type { PlaceLoads } from './step-context';

/**
 * Placements this worker made that the load counts from Postgres may not include yet, since the
 * projection lags by milliseconds. Each counts until a load query started after its projection returns.
 * Per worker only: replicas placing at once can still exceed a capacity by a few.
 *
 * Kept per place as well (how many are not projected yet, and the sorted times the others were), so a
 * dispatch's count is a binary search: a scan of every reservation per candidate made a burst of N
 * placements cost N² (a fifth of the worker's CPU in the bench's create burst).
 */
export class PlacementReservations {
  private readonly byRun = new Map<string, { readonly place: string; projectedAtMs: number | null }>();
  private readonly byPlace = new Map<string, PlaceTally>();

  reserve(runId: string, place: string): void {
    this.release(runId);
    this.byRun.set(runId, { place, projectedAtMs: null });
    this.tallyOf(place).pending += 1;
  }

  release(runId: string): void {
    const entry = this.byRun.get(runId);
    if (entry) {
      this.byRun.delete(runId);
      this.untally(entry.place, entry.projectedAtMs);
    }
  }

  /** The projection has the run at its place now (a time that is not a number leaves it counted as not projected). */
  projected(runId: string, nowMs: number): void {
    const entry = this.byRun.get(runId);
    if (entry && entry.projectedAtMs === null && Number.isFinite(nowMs)) {
      entry.projectedAtMs = nowMs;
      const tally = this.tallyOf(entry.place);
      tally.pending -= 1;
      // After its equals: times mostly come in order, so this is an append.
      tally.projectedAtMs.splice(firstAfter(tally.projectedAtMs, nowMs), 0, nowMs);
    }
  }

  /** How many runs to add to `place`'s count from a query begun at `queriedAtMs`. */
  extra(place: string, queriedAtMs: number): number {
    const tally = this.byPlace.get(place);
    return tally ? tally.pending + tally.projectedAtMs.length - firstAtOrAfter(tally.projectedAtMs, queriedAtMs) : 0;
  }

  /** Drops what a query begun at `queriedAtMs` counted itself. */
  prune(queriedAtMs: number): void {
    for (const [runId, entry] of this.byRun) {
      if (entry.projectedAtMs !== null && entry.projectedAtMs < queriedAtMs) {
        this.byRun.delete(runId);
      }
    }
    // The same entries, as each place's earliest times: cut at once, not one splice each.
    for (const [place, tally] of this.byPlace) {
      tally.projectedAtMs.splice(0, firstAtOrAfter(tally.projectedAtMs, queriedAtMs));
      this.forgetIfEmpty(place, tally);
    }
  }

  private tallyOf(place: string): PlaceTally {
    let tally = this.byPlace.get(place);
    if (!tally) {
      tally = { pending: 0, projectedAtMs: [] };
      this.byPlace.set(place, tally);
    }
    return tally;
  }

  private untally(place: string, projectedAtMs: number | null): void {
    const tally = this.tallyOf(place);
    if (projectedAtMs === null) {
      tally.pending -= 1;
    } else {
      tally.projectedAtMs.splice(firstAtOrAfter(tally.projectedAtMs, projectedAtMs), 1);
    }
    this.forgetIfEmpty(place, tally);
  }

  private forgetIfEmpty(place: string, tally: PlaceTally): void {
    if (tally.pending === 0 && tally.projectedAtMs.length === 0) {
      this.byPlace.delete(place);
    }
  }
}

/** A place's reservations: how many are not projected yet, and when the others were (ascending). */
interface PlaceTally {
  pending: number;
  readonly projectedAtMs: number[];
}

/** The index of the first time at or after `ms` in an ascending list (its length if none). */
function firstAtOrAfter(sorted: readonly number[], ms: number): number {
  return firstWhere(sorted, (t) => t >= ms);
}

/** The index of the first time after `ms` in an ascending list (its length if none). */
function firstAfter(sorted: readonly number[], ms: number): number {
  return firstWhere(sorted, (t) => t > ms);
}

/** Binary search for the first element of an ascending list that `reached` holds for. */
function firstWhere(sorted: readonly number[], reached: (t: number) => boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (reached(sorted[middle]!)) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return low;
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
