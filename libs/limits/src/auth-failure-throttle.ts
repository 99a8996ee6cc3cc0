import type { AuthFailureHook } from '@wrs/auth';
import { RateLimiter } from '@wrs/messaging';
import { failedAuthentications, rateLimitRejections } from '@wrs/observability';
import { ProblemError } from '@wrs/problem';
import type { Request } from 'express';

/**
 * Throttles failed authentication per client address (shared in Redis); good credentials behind the same
 * NAT are never throttled. `req.ip` trusts X-Forwarded-For only from TRUSTED_PROXIES, so a client cannot
 * pick its own bucket. If Redis is down, failures get the usual 401 (fail open).
 */
export function authFailureThrottle(limiter: RateLimiter, failuresPerMinute: number): AuthFailureHook {
  return async (req: Request, failure: unknown) => {
    if (!(failure instanceof ProblemError) || !isAuthenticationFailure(failure)) {
      return;
    }
    const decision = await limiter.check([
      { name: 'auth_failures', key: `authfail:${req.ip ?? 'unknown'}`, limit: failuresPerMinute, windowSeconds: 60 },
    ]);
    if (decision && !decision.allowed) {
      failedAuthentications.inc({ outcome: 'throttled' });
      rateLimitRejections.inc({ limit: 'auth_failures' });
      throw new ProblemError('rate_limited', {
        detail: 'too many failed authentications from this address; retry after the time given',
        headers: { 'Retry-After': String(Math.max(1, decision.retryAfterSeconds)) },
        params: { policies: [{ name: 'auth_failures', limit: failuresPerMinute, windowSeconds: 60 }] },
      });
    }
    failedAuthentications.inc({ outcome: 'refused' });
  };
}

// A missing credential guesses nothing: only a credential that was tried and failed counts.
const AUTHENTICATION_CODES = new Set([
  'token_malformed',
  'token_invalid_signature',
  'token_expired',
  'token_claims_invalid',
  'token_revoked',
  'provider_key_not_token',
  'session_invalid',
]);

function isAuthenticationFailure(error: ProblemError): boolean {
  return AUTHENTICATION_CODES.has(error.code);
}
