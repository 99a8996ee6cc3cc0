import type { EffectiveLimits } from '@wrs/limits';
import type { RunQueries } from '@wrs/persistence';
import type { IdempotencyCache } from './idempotency-cache';

export interface QuotaVerdict {
  readonly exceeded: boolean;
  readonly limit: number;
  readonly active: number;
}

/** How long a count taken from Postgres stands before the next create takes it again. */
export const ACTIVE_RUNS_RECOUNT_MS = 60_000;

/**
 * The quota of unfinished runs, without a Postgres count per create. Redis keeps per workspace a
 * count (read and incremented in the create's own Redis round trips, see IdempotencyCache) that
 * starts from Postgres's count and goes up with each new run; a run that finishes does not bring it
 * down, so it only over-counts. Below the limit a create passes on it alone. At the limit, or when
 * Redis holds no count (first use, expired after ACTIVE_RUNS_RECOUNT_MS, lost, unreachable), Postgres
 * decides as before and its count replaces the kept one: that is how finished runs and a lost count
 * correct themselves, on every replica, as the count is shared. A soft quota, as the query alone is:
 * runs not yet projected when Postgres counts are missed until the next recount.
 */
export class ActiveRunsQuota {
  constructor(
    private readonly limits: EffectiveLimits,
    private readonly queries: RunQueries,
    private readonly cache: IdempotencyCache,
    private readonly recountMs = ACTIVE_RUNS_RECOUNT_MS,
  ) {}

  /** `kept`: the count Redis answered with, if any. */
  async check(workspaceId: string, kept: number | undefined): Promise<QuotaVerdict> {
    const { maxActiveRuns } = await this.limits.for(workspaceId);
    if (kept !== undefined && Number.isInteger(kept) && kept < maxActiveRuns) {
      return { exceeded: false, limit: maxActiveRuns, active: kept };
    }
    const active = await this.queries.countActive(workspaceId, maxActiveRuns);
    await this.cache.setActiveRuns(workspaceId, active, this.recountMs);
    return { exceeded: active >= maxActiveRuns, limit: maxActiveRuns, active };
  }
}
