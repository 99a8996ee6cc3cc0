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
 * The unfinished-runs quota without a Postgres count per create: Redis keeps a shared count that only goes
 * up. At the limit, or with no count, Postgres decides. Its count misses runs not projected yet, so it may
 * raise the kept count but never lower it; a kept count expires recountMs after it was set, and is then
 * taken from Postgres again (that is how finished runs stop counting).
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
    const keptIsValid = kept !== undefined && Number.isInteger(kept);
    if (keptIsValid && kept < maxActiveRuns) {
      return { exceeded: false, limit: maxActiveRuns, active: kept };
    }
    const active = await this.queries.countActive(workspaceId, maxActiveRuns);
    if (!keptIsValid || active > kept) {
      await this.cache.setActiveRuns(workspaceId, active, this.recountMs);
    }
    return { exceeded: active >= maxActiveRuns, limit: maxActiveRuns, active };
  }
}
