import { KeyObject, type webcrypto } from 'node:crypto';
import { errors, type JWTVerifyGetKey } from 'jose';
import { TokenError } from './token-error';

/** Where verification keys come from: files (development) or an identity provider's JWKS. */
export interface KeySource {
  /** jose's key resolver: the key a token's header names (a JWKS source may refetch, rate-limited). */
  readonly resolve: JWTVerifyGetKey;
  /** Is a key with this id among the current keys? A remembered signature counts only while it is. */
  has(kid: string): boolean;
}

/**
 * Each algorithm with the only key type it may use (RFC 8725 3.1). jose checks this too, but we keep the
 * rule here so a changed library default cannot loosen it.
 */
const ALGORITHMS: Readonly<Record<string, (key: KeyObject) => boolean>> = {
  EdDSA: (key) => key.asymmetricKeyType === 'ed25519',
  ES256: (key) => key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1',
  RS256: (key) => key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048,
};

export const ALLOWED_ALGORITHMS: readonly string[] = Object.keys(ALGORITHMS);

/** The algorithm a signing key signs with (the first allowed one that fits its type). */
export function algorithmFor(key: KeyObject): string {
  // A private key has the same type and details as its public half.
  const alg = ALLOWED_ALGORITHMS.find((a) => ALGORITHMS[a]?.(key));
  if (!alg) {
    throw new Error(`no allowed algorithm for a ${key.asymmetricKeyType ?? 'symmetric'} key`);
  }
  return alg;
}

/** Refuses a key whose type is not the one its algorithm is bound to; otherwise passes it on. */
export function checkKeyFits(alg: string | undefined, key: unknown): KeyObject {
  // jose hands over Web Crypto keys from a JWKS; ours are Node KeyObjects.
  const keyObject = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey);
  const fits = alg !== undefined && Object.hasOwn(ALGORITHMS, alg) && ALGORITHMS[alg]?.(keyObject) === true;
  if (!fits) {
    throw new TokenError('token_invalid_signature', 'algorithm not allowed for this key');
  }
  return keyObject;
}

/** Keys read at start (PEM files), by id. The map may change (tests rotate keys out by deleting). */
export class StaticKeySource implements KeySource {
  constructor(private readonly keys: ReadonlyMap<string, KeyObject>) {}

  readonly resolve: JWTVerifyGetKey = (header) => {
    const key = this.keys.get(header.kid ?? '');
    if (!key) {
      throw new errors.JWKSNoMatchingKey();
    }
    return checkKeyFits(header.alg, key);
  };

  has(kid: string): boolean {
    return this.keys.has(kid);
  }
}
