import { timingSafeEqual } from 'node:crypto';
import { ProblemError } from '@wrs/problem';
import type { Request } from 'express';
import { TokenError, type AccessTokenVerifier, type VerifiedToken } from './access-token';
import type { CredentialFingerprintCheck, Principal, RevocationCheck } from './principal';
import { looksLikeJwt, looksLikeProviderKey } from './provider-key-shape';
import { CSRF_HEADER, sessionIdFrom } from './sessions/cookies';
import type { SessionStore } from './sessions/session-store';

export const WORKSPACE_HEADER = 'X-Service-Workspace-ID';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface AuthenticatorOptions {
  /** Origins (scheme://host[:port]) whose pages may make cookie-authenticated changes. */
  readonly allowedOrigins: readonly string[];
}

/**
 * Decides who a request comes from. A bearer token wins over a cookie (a request carrying both is
 * judged by the token alone); a cookie session must, for any change, also carry the CSRF token and come
 * from an allowed origin. The workspace comes from the credential; the X-Service-Workspace-ID header
 * may only confirm it (or choose among an unbound token's workspaces).
 */
export class Authenticator {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly revocations: RevocationCheck,
    private readonly sessions: SessionStore | null,
    private readonly fingerprints: CredentialFingerprintCheck,
    private readonly options: AuthenticatorOptions,
  ) {}

  async authenticate(req: Request): Promise<Principal> {
    const authorization = req.header('authorization');
    if (authorization !== undefined) {
      return this.fromBearer(req, authorization);
    }
    const sessionId = sessionIdFrom(req.header('cookie'));
    if (sessionId !== undefined && this.sessions) {
      return this.fromSession(req, sessionId, this.sessions);
    }
    throw new ProblemError('token_missing', { headers: { 'WWW-Authenticate': 'Bearer' } });
  }

  private async fromBearer(req: Request, authorization: string): Promise<Principal> {
    const match = /^Bearer +([^\s]+) *$/i.exec(authorization);
    const value = match?.[1];
    if (!value) {
      throw new ProblemError('token_malformed', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_request"' } });
    }
    if (looksLikeProviderKey(value) || (!looksLikeJwt(value) && (await this.fingerprints.matches(value)))) {
      throw new ProblemError('provider_key_not_token', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
    }
    let token: VerifiedToken;
    try {
      token = await this.verifier.verify(value);
    } catch (error) {
      if (error instanceof TokenError) {
        throw new ProblemError(error.code, {
          detail: error.message,
          headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
        });
      }
      throw error;
    }
    if (this.revocations.isRevoked(token.tokenId)) {
      throw new ProblemError('token_revoked', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
    }
    return {
      workspaceId: this.workspaceFor(req, token.workspaceId, token.allowedWorkspaces),
      subject: token.subject,
      tokenId: token.tokenId,
      expiresAt: token.expiresAt,
      via: 'bearer',
    };
  }

  private async fromSession(req: Request, sessionId: string, sessions: SessionStore): Promise<Principal> {
    const session = await sessions.get(sessionId);
    if (!session || this.revocations.isRevoked(session.tokenId)) {
      throw new ProblemError('session_invalid');
    }
    if (!SAFE_METHODS.has(req.method)) {
      this.checkCsrf(req, session.csrfToken);
    }
    return {
      workspaceId: this.workspaceFor(req, session.workspaceId, [session.workspaceId]),
      subject: session.subject,
      tokenId: session.tokenId,
      expiresAt: session.expiresAt,
      via: 'session',
      sessionId,
      csrfToken: session.csrfToken,
    };
  }

  /** Synchronizer token, compared in constant time, plus the Origin / Sec-Fetch-Site check (OWASP). */
  private checkCsrf(req: Request, expected: string): void {
    const offered = Buffer.from(req.header(CSRF_HEADER) ?? '');
    const wanted = Buffer.from(expected);
    const tokenOk = offered.length === wanted.length && timingSafeEqual(offered, wanted);
    const site = req.header('sec-fetch-site');
    const origin = req.header('origin');
    const siteOk = site === undefined || site === 'same-origin' || site === 'none';
    const originOk = origin === undefined || origin === ownOrigin(req) || this.options.allowedOrigins.includes(origin);
    if (!tokenOk || !siteOk || !originOk) {
      throw new ProblemError('csrf_failed');
    }
  }

  private workspaceFor(req: Request, bound: string | null, allowed: readonly string[]): string {
    const named = req.header(WORKSPACE_HEADER);
    if (bound !== null) {
      if (named !== undefined && named !== bound) {
        throw new ProblemError('workspace_mismatch');
      }
      return bound;
    }
    if (named === undefined) {
      throw new ProblemError('workspace_header_required', { params: { header: WORKSPACE_HEADER } });
    }
    if (!allowed.includes(named)) {
      throw new ProblemError('workspace_mismatch');
    }
    return named;
  }
}

function ownOrigin(req: Request): string {
  const proto = req.header('x-forwarded-proto') ?? req.protocol;
  return `${proto}://${req.header('x-forwarded-host') ?? req.header('host') ?? ''}`;
}
