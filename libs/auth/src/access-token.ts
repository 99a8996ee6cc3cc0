import { createPublicKey, randomUUID, sign, verify, type KeyObject } from 'node:crypto';

/** Workspace ids are also NATS subject tokens and Redis key parts: keep them to a safe alphabet. */
export const WORKSPACE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** `typ` of our access tokens (RFC 9068), checked so that no other JWT can pass as one. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

export type TokenErrorCode = 'token_malformed' | 'token_invalid_signature' | 'token_expired' | 'token_claims_invalid';

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
  readonly workspaceId: string;
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
  readonly workspaceId: string;
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
    ws: options.workspaceId,
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
  /** Public keys by `kid`; several at once so keys can rotate. */
  readonly publicKeys: ReadonlyMap<string, KeyObject>;
  readonly issuer: string;
  readonly audience: string;
  /** A token whose lifetime (exp - iat) exceeds this is refused, whoever signed it. */
  readonly maxTtlSeconds: number;
  readonly clockSkewSeconds: number;
}

/**
 * Verifies compact JWS access tokens per RFC 8725: the algorithm is allow-listed (EdDSA only; `none` and
 * HMAC are never accepted), `typ`, `iss`, `aud`, `exp`, `nbf` and the lifetime are checked.
 */
export class AccessTokenVerifier {
  constructor(private readonly options: VerifierOptions) {}

  verify(token: string, now: number = Date.now()): VerifiedToken {
    const parts = token.split('.');
    if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) {
      throw new TokenError('token_malformed', 'not a compact JWS');
    }
    const [encodedHeader, encodedClaims, encodedSignature] = parts as [string, string, string];
    const header = parseSegment(encodedHeader);
    if (header['alg'] !== 'EdDSA') {
      throw new TokenError('token_invalid_signature', 'algorithm not allowed');
    }
    if (header['typ'] !== ACCESS_TOKEN_TYPE) {
      throw new TokenError('token_claims_invalid', 'not an access token');
    }
    const key = typeof header['kid'] === 'string' ? this.options.publicKeys.get(header['kid']) : undefined;
    const signature = Buffer.from(encodedSignature, 'base64url');
    if (!key || !verify(null, Buffer.from(`${encodedHeader}.${encodedClaims}`), key, signature)) {
      throw new TokenError('token_invalid_signature', 'signature does not verify');
    }
    return this.checkClaims(parseSegment(encodedClaims), Math.floor(now / 1000));
  }

  private checkClaims(claims: Record<string, unknown>, now: number): VerifiedToken {
    const { iss, aud, sub, ws, iat, nbf, exp, jti } = claims;
    const skew = this.options.clockSkewSeconds;
    if (typeof exp !== 'number' || typeof iat !== 'number' || typeof nbf !== 'number') {
      throw new TokenError('token_claims_invalid', 'exp, iat and nbf are required');
    }
    if (now - skew >= exp) {
      throw new TokenError('token_expired', 'token expired');
    }
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (
      iss !== this.options.issuer ||
      !audiences.includes(this.options.audience) ||
      nbf > now + skew ||
      iat > now + skew ||
      exp - iat > this.options.maxTtlSeconds ||
      typeof sub !== 'string' ||
      typeof jti !== 'string' ||
      typeof ws !== 'string' ||
      !WORKSPACE_ID_PATTERN.test(ws)
    ) {
      throw new TokenError('token_claims_invalid', 'claims not valid for this service');
    }
    return { workspaceId: ws, subject: sub, tokenId: jti, expiresAt: exp };
  }
}

/** Key id of a public key: its SHA-256 JWK thumbprint-like digest, stable across restarts. */
export function keyIdOf(key: KeyObject): string {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  return Buffer.from(`${jwk.crv}:${jwk.x}`).toString('base64url').slice(0, 16);
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
