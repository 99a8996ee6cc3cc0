import { timingSafeEqual } from 'node:crypto';
import { ProblemError } from '@wrs/problem';
import type { Request } from 'express';
import { TokenError, type AccessTokenVerifier, type VerifiedToken } from './access-token';
import type { CredentialFingerprintCheck, Principal, RevocationCheck } from './principal';
import { looksLikeJwt, looksLikeProviderKey } from './provider-key-shape';
import { CSRF_HEADER, sessionIdFrom } from './sessions/cookies';
import { sessionHashOf } from './sessions/session-hash';
import type { SessionStore } from './sessions/session-store';

export const WORKSPACE_HEADER = 'X-Service-Workspace-ID';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface AuthenticatorOptions {
  /** Other origins (CORS_ORIGINS) whose pages may make cookie-authenticated changes (same-site ones). */
  readonly allowedOrigins: readonly string[];
  /**
   * The origins users reach the service at (PUBLIC_ORIGINS). Empty: the origin the request names in
   * its Host header, with the scheme of the connection itself; never X-Forwarded-*, which a client sets.
   */
  readonly publicOrigins?: readonly string[];
  /**
   * Told, after the answer has gone, that a bearer value equal to a stored provider key was sent
   * (for the operator: a log line and a counter, never the value).
   */
  readonly onStoredKeyAsBearer?: (req: Request) => void;
}

/**
 * Decides who a request comes from. A bearer token wins over a cookie; a cookie session needs the CSRF
 * token and an allowed origin for any change. The workspace comes from the credential, and the
 * X-Service-Workspace-ID header may only confirm it (or pick one of an unbound token's workspaces).
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
    // The answer depends on the value's shape only: a lookup of the stored keys before it would tell a
    // caller whether any workspace stores that secret (an oracle). The lookup comes after, for the operator.
    if (looksLikeProviderKey(value)) {
      throw new ProblemError('provider_key_not_token', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
    }
    if (!looksLikeJwt(value)) {
      this.reportIfStoredKey(req, value);
      throw new ProblemError('token_malformed', {
        detail: 'not a compact JWS',
        headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
      });
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
    // Redis expires the session at its token's expiry; checked here too, so a clock or TTL slip cannot extend it.
    // An ended session may still be in Redis (its delete failed after the end was published): it is over.
    const ended = this.revocations.isSessionEnded(sessionHashOf(sessionId));
    if (!session || ended || session.expiresAt * 1000 <= Date.now() || this.revocations.isRevoked(session.tokenId)) {
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

  /**
   * CSRF check: the synchronizer token, compared in constant time, plus Origin / Sec-Fetch-Site (OWASP).
   * CORS_ORIGINS look cross-site to the browser, so they are let through by Origin.
   */
  private checkCsrf(req: Request, expected: string): void {
    const offered = Buffer.from(req.header(CSRF_HEADER) ?? '');
    const wanted = Buffer.from(expected);
    const tokenOk = offered.length === wanted.length && timingSafeEqual(offered, wanted);
    const site = req.header('sec-fetch-site');
    const origin = req.header('origin');
    const fromAllowedOrigin = origin !== undefined && this.options.allowedOrigins.includes(origin);
    const siteOk = site === undefined || site === 'same-origin' || site === 'none' || fromAllowedOrigin;
    const originOk = origin === undefined || this.publicOrigins(req).includes(origin) || fromAllowedOrigin;
    if (!tokenOk || !siteOk || !originOk) {
      throw new ProblemError('csrf_failed');
    }
  }

  private publicOrigins(req: Request): readonly string[] {
    const configured = this.options.publicOrigins ?? [];
    if (configured.length > 0) {
      return configured;
    }
    // A browser cannot forge Host; the scheme is this connection's, not a header's.
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    return [`${scheme}://${req.header('host') ?? ''}`];
  }

  /** After the answer: does the value equal a stored provider key? Only the operator is told. */
  private reportIfStoredKey(req: Request, value: string): void {
    const report = this.options.onStoredKeyAsBearer;
    if (!report || !req.res) {
      return;
    }
    req.res.once('close', () => {
      void this.fingerprints.matches(value).then(
        (stored) => stored && report(req),
        () => undefined,
      );
    });
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
