import { createHash, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { ALLOWED_ALGORITHMS, algorithmFor, type KeySource } from './key-source';
import { TokenError } from './token-error';

export { TokenError, type TokenErrorCode } from './token-error';

/** Workspace ids are also NATS subject tokens and Redis key parts: keep them to a safe alphabet. */
export const WORKSPACE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** `typ` of our access tokens (RFC 9068), checked so that no other JWT can pass as one. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

export interface VerifiedToken {
  /** The workspace the token is bound to, or null for a token that may act in several (`wss`). */
  readonly workspaceId: string | null;
  /** For an unbound token: the workspaces it may name in X-Service-Workspace-ID. */
  readonly allowedWorkspaces: readonly string[];
  readonly subject: string;
  readonly tokenId: string;
  readonly expiresAt: number;
}

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
}

export interface MintOptions {
  readonly issuer: string;
  readonly audience: string;
  /** One workspace (`ws`), or several for an unbound token (`wss`, which then needs the header). */
  readonly workspaceId: string | readonly string[];
  readonly subject: string;
  readonly ttlSeconds: number;
  readonly now?: number;
}

/** Signs an access token (development and tests; production tokens come from an identity provider). */
export async function mintAccessToken(key: SigningKey, options: MintOptions): Promise<string> {
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const workspace = typeof options.workspaceId === 'string' ? { ws: options.workspaceId } : { wss: [...options.workspaceId] };
  return new SignJWT(workspace)
    .setProtectedHeader({ alg: algorithmFor(key.privateKey), typ: ACCESS_TOKEN_TYPE, kid: key.kid })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setSubject(options.subject)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + options.ttlSeconds)
    .setJti(randomUUID())
    .sign(key.privateKey);
}

export interface VerifierOptions {
  /** Verification keys by `kid`; several at once so keys can rotate. */
  readonly keys: KeySource;
  readonly issuer: string;
  readonly audience: string;
  /** A token whose lifetime (exp - iat) exceeds this is refused, whoever signed it. */
  readonly maxTtlSeconds: number;
  readonly clockSkewSeconds: number;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Verifies JWS access tokens per RFC 8725: only EdDSA, ES256 and RS256 with matching key types (never
 * `none` or HMAC), and `typ`, `iss`, `aud`, `exp`, `nbf` and lifetime with a small clock skew.
 */
export class AccessTokenVerifier {
  /**
   * Verified signatures are cached because signature checks were the largest cost of an authenticated
   * read. The key must still be current and the claims (expiry) are checked on every use; oldest first out.
   */
  private readonly verified = new Map<string, { kid: string; claims: Record<string, unknown> }>();

  constructor(
    private readonly options: VerifierOptions,
    private readonly maxRemembered = 10_000,
  ) {}

  async verify(token: string, now: number = Date.now()): Promise<VerifiedToken> {
    const remembered = this.verified.get(token);
    if (remembered && this.options.keys.has(remembered.kid)) {
      try {
        return this.checkClaims(remembered.claims, Math.floor(now / 1000));
      } catch (error) {
        this.verified.delete(token);
        throw error;
      }
    }
    // Our own shape check first, so that an empty signature (`alg: none`'s usual form) or any other
    // non-JWS is `token_malformed` whatever the library would call it.
    if (!COMPACT_JWS.test(token)) {
      throw new TokenError('token_malformed', 'not a compact JWS');
    }
    let verified: { payload: Record<string, unknown>; protectedHeader: { kid?: string } };
    try {
      verified = await jwtVerify(token, this.options.keys.resolve, {
        algorithms: [...ALLOWED_ALGORITHMS],
        typ: ACCESS_TOKEN_TYPE,
        issuer: this.options.issuer,
        audience: this.options.audience,
        clockTolerance: this.options.clockSkewSeconds,
        currentDate: new Date(now),
        requiredClaims: ['exp', 'iat', 'nbf', 'sub', 'jti'],
      });
    } catch (error) {
      throw asTokenError(error);
    }
    const claims = verified.payload;
    const result = this.checkClaims(claims, Math.floor(now / 1000));
    this.remember(token, verified.protectedHeader.kid ?? '', claims);
    return result;
  }

  private remember(token: string, kid: string, claims: Record<string, unknown>): void {
    if (this.verified.size >= this.maxRemembered) {
      this.verified.delete(this.verified.keys().next().value as string);
    }
    this.verified.set(token, { kid, claims });
  }

  /** Every claim rule, again on each use of a remembered token (jose checked them once, too). */
  private checkClaims(claims: Record<string, unknown>, now: number): VerifiedToken {
    const { iss, aud, sub, ws, wss, iat, nbf, exp, jti } = claims;
    const skew = this.options.clockSkewSeconds;
    if (typeof exp !== 'number' || typeof iat !== 'number' || typeof nbf !== 'number') {
      throw new TokenError('token_claims_invalid', 'exp, iat and nbf are required');
    }
    if (now - skew >= exp) {
      throw new TokenError('token_expired', 'token expired');
    }
    const audiences = Array.isArray(aud) ? aud : [aud];
    const bound = typeof ws === 'string' && WORKSPACE_ID_PATTERN.test(ws);
    const unbound =
      ws === undefined && Array.isArray(wss) && wss.length > 0 && wss.every((w) => typeof w === 'string' && WORKSPACE_ID_PATTERN.test(w));
    if (
      iss !== this.options.issuer ||
      !audiences.includes(this.options.audience) ||
      nbf > now + skew ||
      iat > now + skew ||
      exp - iat > this.options.maxTtlSeconds ||
      typeof sub !== 'string' ||
      typeof jti !== 'string' ||
      !(bound || unbound)
    ) {
      throw new TokenError('token_claims_invalid', 'claims not valid for this service');
    }
    return {
      workspaceId: bound ? (ws as string) : null,
      allowedWorkspaces: bound ? [ws as string] : (wss as string[]),
      subject: sub,
      tokenId: jti,
      expiresAt: exp,
    };
  }
}

/** jose's errors, as our codes: a token is malformed, badly signed, expired, or has wrong claims. */
function asTokenError(error: unknown): TokenError {
  if (error instanceof TokenError) {
    return error;
  }
  if (error instanceof errors.JWTExpired) {
    return new TokenError('token_expired', 'token expired');
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new TokenError('token_claims_invalid', error.claim === 'typ' ? 'not an access token' : 'claims not valid for this service');
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return new TokenError('token_malformed', 'not a valid JWS');
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    // The identity provider did not answer a refetch: the token cannot be checked, so it is refused.
    return new TokenError('token_invalid_signature', 'verification keys unavailable');
  }
  // Algorithm not allowed, no key with this id, signature mismatch, or a key that does not fit.
  return new TokenError('token_invalid_signature', 'signature does not verify');
}

/** Key id of a public key: its RFC 7638 JWK thumbprint, stable across restarts and key formats. */
export function keyIdOf(key: KeyObject): string {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  const members: Record<string, string[]> = { OKP: ['crv', 'kty', 'x'], EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'] };
  const required = members[jwk.kty ?? ''] ?? Object.keys(jwk).sort();
  const canonical = JSON.stringify(Object.fromEntries(required.map((m) => [m, (jwk as Record<string, unknown>)[m]])));
  return createHash('sha256').update(canonical).digest('base64url');
}
