import { createHash, createPublicKey, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import type { KeySource } from './key-source';

/** Workspace ids are also NATS subject tokens and Redis key parts: keep them to a safe alphabet. */
export const WORKSPACE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** `typ` of our access tokens (RFC 9068), checked so that no other JWT can pass as one. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

export type TokenErrorCode =
  | 'token_malformed'
  | 'token_invalid_signature'
  | 'token_expired'
  | 'token_claims_invalid'
  | 'token_revoked';

export class TokenError extends Error {
  constructor(
    readonly code: TokenErrorCode,
    reason: string,
  ) {
    // The reason names what failed, never the token itself.
    super(reason);
    this.name = 'TokenError';
  }
}

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

export function mintAccessToken(key: SigningKey, options: MintOptions): string {
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const header = { alg: 'EdDSA', typ: ACCESS_TOKEN_TYPE, kid: key.kid };
  const claims = {
    iss: options.issuer,
    aud: options.audience,
    sub: options.subject,
    ...(typeof options.workspaceId === 'string' ? { ws: options.workspaceId } : { wss: options.workspaceId }),
    iat: now,
    nbf: now,
    exp: now + options.ttlSeconds,
    jti: randomUUID(),
  };
  const signingInput = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = sign(null, Buffer.from(signingInput), key.privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
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

/** The allow-list: each algorithm with the only key type it may be used with. */
const ALGORITHMS: Record<string, { keyType: string; check(key: KeyObject): boolean; verify(data: Buffer, key: KeyObject, sig: Buffer): boolean }> = {
  EdDSA: {
    keyType: 'ed25519',
    check: (key) => key.asymmetricKeyType === 'ed25519',
    verify: (data, key, sig) => verify(null, data, key, sig),
  },
  ES256: {
    keyType: 'ec',
    check: (key) => key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1',
    verify: (data, key, sig) => verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig),
  },
  RS256: {
    keyType: 'rsa',
    check: (key) => key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048,
    verify: (data, key, sig) => verify('sha256', data, key, sig),
  },
};

/**
 * Verifies compact JWS access tokens per RFC 8725: the algorithm is allow-listed (EdDSA, ES256, RS256,
 * each only with its own key type; `none` and HMAC never), `typ`, `iss`, `aud`, `exp`, `nbf` and the
 * lifetime are checked, with a small clock skew.
 */
export class AccessTokenVerifier {
  /**
   * Tokens whose signature verified, with their key id and claims: a client sends the same token with
   * every request, and the signature check was the largest cost of an authenticated read in the
   * profile. Only the signature is remembered; the key must still be current and the claims are checked
   * again (expiry) on every use. Bounded: the oldest entry goes first.
   */
  private readonly verified = new Map<string, { kid: string; claims: Record<string, unknown> }>();

  constructor(
    private readonly options: VerifierOptions,
    private readonly maxRemembered = 10_000,
  ) {}

  async verify(token: string, now: number = Date.now()): Promise<VerifiedToken> {
    const remembered = this.verified.get(token);
    if (remembered && this.options.keys.key(remembered.kid)) {
      try {
        return this.checkClaims(remembered.claims, Math.floor(now / 1000));
      } catch (error) {
        this.verified.delete(token);
        throw error;
      }
    }
    const parts = token.split('.');
    if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) {
      throw new TokenError('token_malformed', 'not a compact JWS');
    }
    const [encodedHeader, encodedClaims, encodedSignature] = parts as [string, string, string];
    const header = parseSegment(encodedHeader);
    const algorithm = typeof header['alg'] === 'string' ? ALGORITHMS[header['alg']] : undefined;
    if (!algorithm || !Object.hasOwn(ALGORITHMS, header['alg'] as string)) {
      throw new TokenError('token_invalid_signature', 'algorithm not allowed');
    }
    if (header['typ'] !== ACCESS_TOKEN_TYPE) {
      throw new TokenError('token_claims_invalid', 'not an access token');
    }
    const kid = typeof header['kid'] === 'string' ? header['kid'] : '';
    let key = this.options.keys.key(kid);
    if (!key && this.options.keys.refresh) {
      await this.options.keys.refresh();
      key = this.options.keys.key(kid);
    }
    const signature = Buffer.from(encodedSignature, 'base64url');
    if (!key || !algorithm.check(key) || !algorithm.verify(Buffer.from(`${encodedHeader}.${encodedClaims}`), key, signature)) {
      throw new TokenError('token_invalid_signature', 'signature does not verify');
    }
    const claims = parseSegment(encodedClaims);
    const verified = this.checkClaims(claims, Math.floor(now / 1000));
    this.remember(token, kid, claims);
    return verified;
  }

  private remember(token: string, kid: string, claims: Record<string, unknown>): void {
    if (this.verified.size >= this.maxRemembered) {
      this.verified.delete(this.verified.keys().next().value as string);
    }
    this.verified.set(token, { kid, claims });
  }

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
      ws === undefined &&
      Array.isArray(wss) &&
      wss.length > 0 &&
      wss.every((w) => typeof w === 'string' && WORKSPACE_ID_PATTERN.test(w));
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

/** Key id of a public key: its RFC 7638 JWK thumbprint, stable across restarts and key formats. */
export function keyIdOf(key: KeyObject): string {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  const members: Record<string, string[]> = { OKP: ['crv', 'kty', 'x'], EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'] };
  const required = members[jwk.kty ?? ''] ?? Object.keys(jwk).sort();
  const canonical = JSON.stringify(Object.fromEntries(required.map((m) => [m, (jwk as Record<string, unknown>)[m]])));
  return createHash('sha256').update(canonical).digest('base64url');
}

function b64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function parseSegment(segment: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // fall through
  }
  throw new TokenError('token_malformed', 'segment is not a JSON object');
}
