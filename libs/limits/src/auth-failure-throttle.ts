import type { AuthFailureHook } from '@wrs/auth';
import { RateLimiter } from '@wrs/messaging';
import { failedAuthentications, rateLimitRejections } from '@wrs/observability';
import { ProblemError } from '@wrs/problem';
import type { Request } from 'express';

/**
 * Failed authentication, rate limited per client address, shared by every replica through Redis.
 * Only requests whose credential failed are counted or refused: a good credential from the same
 * address (a NAT of many users) is never throttled. The address is Express's `req.ip`, which takes
 * X-Forwarded-For only from the hops `TRUSTED_PROXIES` names (a client cannot pick its own bucket).
 * Redis unreachable: the failure is answered 401 as usual (fail open, like the request limits).
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
