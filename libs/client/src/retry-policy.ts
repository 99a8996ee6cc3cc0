/** Bounds on retrying one logical request: attempts and total time, both. */
export interface RetryPolicy {
  /** Requests in all, the first included. */
  readonly maxAttempts: number;
  /** The backoff ceiling of the first retry; it doubles with each retry. */
  readonly baseDelayMs: number;
  /** The backoff ceiling never grows past this. */
  readonly maxDelayMs: number;
  /** From the first request, no retry starts later than this. */
  readonly maxElapsedMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxElapsedMs: 60_000,
};

/** Where a logical request stands when one of its attempts failed in a retryable way. */
export interface RetryState {
  /** Attempts made so far (1 after the first request). */
  readonly attempts: number;
  readonly startedAtMs: number;
  readonly nowMs: number;
  /** The server's Retry-After, in milliseconds, if it sent one. */
  readonly retryAfterMs: number | undefined;
}

/**
 * Exponential backoff with full jitter (a uniform wait in [0, min(maxDelay, base * 2^(n-1)))), never
 * shorter than the server's Retry-After. `random` returns [0, 1), injected so tests can pin it.
 */
export function backoffDelayMs(policy: RetryPolicy, retryNumber: number, random: () => number, retryAfterMs?: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retryNumber - 1));
  const jittered = Math.floor(random() * ceiling);
  return retryAfterMs === undefined ? jittered : Math.max(retryAfterMs, jittered);
}

/**
 * The wait before the next attempt, or undefined to give up: out of attempts, or the next attempt would
 * start past the total-time bound (so a long Retry-After gives up at once instead of sleeping).
 */
export function nextRetryDelayMs(policy: RetryPolicy, state: RetryState, random: () => number): number | undefined {
  if (state.attempts >= policy.maxAttempts) {
    return undefined;
  }
  const delay = backoffDelayMs(policy, state.attempts, random, state.retryAfterMs);
  if (state.nowMs + delay - state.startedAtMs > policy.maxElapsedMs) {
    return undefined;
  }
  return delay;
}

/** Retry-After as delta-seconds or an HTTP-date (RFC 9110 10.2.3), in milliseconds from `nowMs`. */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') {
    return undefined;
  }
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    return Number(trimmed) * 1000;
  }
  // An HTTP-date names a day and a month (`Sun, 06 Nov 1994 08:49:37 GMT`); Date.parse takes too much else.
  const at = /^[A-Za-z]{3}, /.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
