import { ConfigError, TOKEN_CLOCK_SKEW_SECONDS } from '@wrs/config';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AccessTokenVerifier, keyIdOf, type SigningKey } from './access-token';
import { JwksKeySource } from './jwks-key-source';
import { StaticKeySource, type KeySource } from './key-source';

/** Longest lifetime (exp - iat) a token may have by default, whoever signed it: tokens are short-lived. */
export const ACCESS_TOKEN_MAX_TTL_SECONDS = 60 * 60;
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const CLOCK_SKEW_SECONDS = TOKEN_CLOCK_SKEW_SECONDS;

/** Reads PEM public keys from a comma-separated list of files; each key's id is its thumbprint. */
export function readPublicKeys(files: string): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const file of files
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)) {
    let key: KeyObject;
    try {
      key = createPublicKey(readFileSync(file));
    } catch (error) {
      throw new ConfigError([`AUTH_PUBLIC_KEY_FILE: cannot read a PEM public key from ${file} (${(error as Error).message})`]);
    }
    keys.set(keyIdOf(key), key);
  }
  return keys;
}

export function readSigningKey(file: string): SigningKey {
  const privateKey = createPrivateKey(readFileSync(file));
  return { kid: keyIdOf(privateKey), privateKey };
}

/**
 * The development key pair (Ed25519) that `npm start` and `npm run token` share, created on first use.
 * Production verifies tokens from an identity provider's keys instead and never holds a private key.
 */
export function ensureDevKeyPair(directory: string): { privateKeyFile: string; publicKeyFile: string } {
  const privateKeyFile = join(directory, 'dev-signing-key.pem');
  const publicKeyFile = join(directory, 'dev-signing-key.pub.pem');
  if (!existsSync(privateKeyFile) || !existsSync(publicKeyFile)) {
    mkdirSync(dirname(privateKeyFile), { recursive: true, mode: 0o700 });
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }));
  }
  return { privateKeyFile, publicKeyFile };
}

export interface TokenVerificationConfig {
  readonly publicKeyFiles?: string | undefined;
  readonly jwksUrl?: string | undefined;
  readonly issuer: string;
  readonly audience: string;
  readonly maxTtlSeconds?: number;
}

const NO_VERIFICATION_KEYS = 'AUTH_JWKS_URL or AUTH_PUBLIC_KEY_FILE: one of them must name the token verification keys';

/**
 * What createVerifier would refuse in the configuration (no keys named, an unreadable PEM file), found
 * without connecting anywhere: a service reports it before it waits for its dependencies.
 */
export function checkVerificationKeys(config: Pick<TokenVerificationConfig, 'publicKeyFiles' | 'jwksUrl'>): void {
  if (config.jwksUrl) {
    return;
  }
  if (!config.publicKeyFiles) {
    throw new ConfigError([NO_VERIFICATION_KEYS]);
  }
  readPublicKeys(config.publicKeyFiles);
}

/** The verifier a service uses: keys from a JWKS URL if configured, else from PEM files. */
export async function createVerifier(config: TokenVerificationConfig): Promise<{ verifier: AccessTokenVerifier; stop(): void }> {
  let keys: KeySource;
  let stop = (): void => undefined;
  if (config.jwksUrl) {
    const jwks = new JwksKeySource(config.jwksUrl);
    await jwks.start();
    keys = jwks;
    stop = () => jwks.stop();
  } else if (config.publicKeyFiles) {
    keys = new StaticKeySource(readPublicKeys(config.publicKeyFiles));
  } else {
    throw new ConfigError([NO_VERIFICATION_KEYS]);
  }
  const verifier = new AccessTokenVerifier({
    keys,
    issuer: config.issuer,
    audience: config.audience,
    maxTtlSeconds: config.maxTtlSeconds ?? ACCESS_TOKEN_MAX_TTL_SECONDS,
    clockSkewSeconds: CLOCK_SKEW_SECONDS,
  });
  return { verifier, stop };
}
