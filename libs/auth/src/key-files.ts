import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AccessTokenVerifier, keyIdOf, type SigningKey } from './access-token';

/** Reads a PEM public key; its key id is derived from the key itself. */
export function readPublicKeys(file: string): Map<string, KeyObject> {
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(file));
  } catch (error) {
    const failure = new Error(`AUTH_PUBLIC_KEY_FILE: cannot read a PEM public key from ${file} (${(error as Error).message})`);
    failure.name = 'ConfigError';
    throw failure;
  }
  return new Map([[keyIdOf(key), key]]);
}

export function readSigningKey(file: string): SigningKey {
  const privateKey = createPrivateKey(readFileSync(file));
  return { kid: keyIdOf(createPublicKey(privateKey)), privateKey };
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

/** Longest lifetime (exp - iat) a token may have, whoever signed it: tokens are short-lived. */
export const ACCESS_TOKEN_MAX_TTL_SECONDS = 60 * 60;
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const CLOCK_SKEW_SECONDS = 30;

export function verifierFromKeyFile(options: {
  publicKeyFile: string;
  issuer: string;
  audience: string;
}): AccessTokenVerifier {
  return new AccessTokenVerifier({
    publicKeys: readPublicKeys(options.publicKeyFile),
    issuer: options.issuer,
    audience: options.audience,
    maxTtlSeconds: ACCESS_TOKEN_MAX_TTL_SECONDS,
    clockSkewSeconds: CLOCK_SKEW_SECONDS,
  });
}
