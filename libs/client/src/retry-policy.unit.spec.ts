import { backoffDelayMs, nextRetryDelayMs, parseRetryAfterMs, type RetryPolicy } from './retry-policy';

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000, maxElapsedMs: 5000 };
const almostOne = 1 - Number.EPSILON;

describe('backoff with full jitter', () => {
  it('draws uniformly from [0, min(maxDelay, base * 2^(n-1))): random 0 waits 0, random ~1 waits just under the ceiling', () => {
    const ceilings = [100, 200, 400, 800, 1000, 1000];
    ceilings.forEach((ceiling, i) => {
      expect(backoffDelayMs(policy, i + 1, () => 0)).toBe(0);
      expect(backoffDelayMs(policy, i + 1, () => almostOne)).toBe(ceiling - 1);
      expect(backoffDelayMs(policy, i + 1, () => 0.5)).toBe(ceiling / 2);
    });
  });

  it("never waits less than the server's Retry-After, even when the jitter draws less", () => {
    expect(backoffDelayMs(policy, 1, () => 0, 3000)).toBe(3000);
    expect(backoffDelayMs(policy, 5, () => almostOne, 200)).toBe(999);
  });
});

describe('when to give up', () => {
  const at = (attempts: number, nowMs: number, retryAfterMs?: number) => ({
    attempts,
    startedAtMs: 10_000,
    nowMs: 10_000 + nowMs,
    retryAfterMs,
  });

  it('stops after maxAttempts requests in all', () => {
    expect(nextRetryDelayMs(policy, at(4, 0), () => 0)).toBe(0);
    expect(nextRetryDelayMs(policy, at(5, 0), () => 0)).toBeUndefined();
  });

  it('stops when the next attempt would start after the total-time bound', () => {
    expect(nextRetryDelayMs(policy, at(2, 4700), () => 0.5)).toBe(100);
    expect(nextRetryDelayMs(policy, at(2, 4950), () => 0.5)).toBeUndefined();
  });

  it('gives up at once on a Retry-After beyond the bound instead of sleeping for nothing', () => {
    expect(nextRetryDelayMs(policy, at(1, 0, 6000), () => 0)).toBeUndefined();
    expect(nextRetryDelayMs(policy, at(1, 0, 2000), () => 0)).toBe(2000);
  });

  it('a simulated storm of 429s with Retry-After 1 s ends within both bounds', () => {
    let now = 0;
    let attempts = 1;
    for (;;) {
      const delay = nextRetryDelayMs(policy, { attempts, startedAtMs: 0, nowMs: now, retryAfterMs: 1000 }, Math.random);
      if (delay === undefined) {
        break;
      }
      expect(delay).toBeGreaterThanOrEqual(1000);
      now += delay;
      attempts++;
    }
    expect(attempts).toBeLessThanOrEqual(policy.maxAttempts);
    expect(now).toBeLessThanOrEqual(policy.maxElapsedMs);
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP-dates, and ignores anything else', () => {
    const now = Date.parse('2026-11-22T02:00:00Z');
    expect(parseRetryAfterMs('3', now)).toBe(3000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 02:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 01:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs('-1', now)).toBeUndefined();
  });
});
