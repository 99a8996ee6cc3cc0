/** How often and how long a delivery is tried: exponential from `baseMs`, each wait capped at `maxDelayMs`. */
export interface RetrySchedule {
  readonly baseMs: number;
  readonly maxDelayMs: number;
  readonly maxAttempts: number;
}

/** 15 attempts over about 11 hours (10 s, 20 s, ... 85 min, then 2 h four times), as docs/webhooks.md says. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseMs: 10_000, maxDelayMs: 2 * 3600_000, maxAttempts: 15 };

/** The wait after the given (1-based) failed attempt, or null when the budget is spent. */
export function delayAfter(attempt: number, schedule: RetrySchedule): number | null {
  if (attempt >= schedule.maxAttempts) {
    return null;
  }
  return Math.min(schedule.maxDelayMs, schedule.baseMs * 2 ** (attempt - 1));
}
