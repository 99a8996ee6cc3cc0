import type { Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AUTH_FAILURE_HOOK, AuthGuard } from '@wrs/auth';
import { authFailureThrottle, RATE_LIMIT_FAILURES, RateLimitGuard } from '@wrs/limits';
import type { RateLimiter } from '@wrs/messaging';

export interface EdgeGuardSettings {
  readonly rateLimiter: RateLimiter;
  /** Requests with a failing credential per client address and minute (AUTH_FAILURES_PER_MINUTE). */
  readonly authFailuresPerMinute?: number;
  /** Called when rate limiting fails open (Redis unreachable). */
  readonly onRateLimitFailOpen?: () => void;
}

/**
 * The global guards of an HTTP service, in this order: who is calling, then how fast. They need the
 * AUTHENTICATOR, the RateLimiter and EffectiveLimits from the application's module.
 */
export function edgeGuards(settings: EdgeGuardSettings): Provider[] {
  return [
    { provide: RATE_LIMIT_FAILURES, useValue: settings.onRateLimitFailOpen ?? (() => undefined) },
    { provide: AUTH_FAILURE_HOOK, useValue: authFailureThrottle(settings.rateLimiter, settings.authFailuresPerMinute ?? 60) },
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ];
}

/** Rate limiting failed open (Redis unreachable): say so, at most once a minute. */
export function rateLimitFailOpenWarning(service: string): () => void {
  let last = 0;
  return () => {
    if (Date.now() - last > 60_000) {
      last = Date.now();
      console.error(JSON.stringify({ level: 'warn', service, msg: 'rate limiting is failing open: Redis unreachable' }));
    }
  };
}
