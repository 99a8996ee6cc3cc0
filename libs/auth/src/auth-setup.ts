import { readFingerprintKey } from '@wrs/credentials';
import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { Authenticator } from './authenticator';
import { CredentialFingerprintIndex } from './credential-fingerprint-index';
import { createVerifier } from './key-files';
import type { RevocationCheck } from './principal';
import { SessionStore } from './sessions/session-store';

export interface AuthConfig {
  readonly AUTH_PUBLIC_KEY_FILE?: string | undefined;
  readonly AUTH_JWKS_URL?: string | undefined;
  readonly AUTH_ISSUER: string;
  readonly AUTH_AUDIENCE: string;
  readonly AUTH_TOKEN_MAX_TTL_SECONDS: number;
  readonly CORS_ORIGINS?: string | undefined;
  readonly PUBLIC_ORIGINS?: string | undefined;
  readonly CREDENTIALS_FINGERPRINT_KEY_FILE?: string | undefined;
  readonly NAMESPACE: string;
}

export interface AuthSetup {
  readonly authenticator: Authenticator;
  readonly sessions: SessionStore;
  readonly fingerprints: CredentialFingerprintIndex;
  readonly allowedOrigins: readonly string[];
  stop(): void;
}

/** The same authentication for the api and the stream-relay, from the same variables. */
export async function createAuthSetup(
  config: AuthConfig,
  redis: Redis,
  revocations: RevocationCheck,
  onStoredKeyAsBearer?: (req: Request) => void,
): Promise<AuthSetup> {
  const { verifier, stop } = await createVerifier({
    publicKeyFiles: config.AUTH_PUBLIC_KEY_FILE,
    jwksUrl: config.AUTH_JWKS_URL,
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    maxTtlSeconds: config.AUTH_TOKEN_MAX_TTL_SECONDS,
  });
  const allowedOrigins = (config.CORS_ORIGINS ?? '').split(',').filter(Boolean);
  const publicOrigins = (config.PUBLIC_ORIGINS ?? '').split(',').filter(Boolean);
  const sessions = new SessionStore(redis, config.NAMESPACE);
  const fingerprints = new CredentialFingerprintIndex(
    redis,
    config.NAMESPACE,
    config.CREDENTIALS_FINGERPRINT_KEY_FILE
      ? readFingerprintKey('CREDENTIALS_FINGERPRINT_KEY_FILE', config.CREDENTIALS_FINGERPRINT_KEY_FILE)
      : null,
  );
  return {
    authenticator: new Authenticator(verifier, revocations, sessions, fingerprints, {
      allowedOrigins,
      publicOrigins,
      ...(onStoredKeyAsBearer ? { onStoredKeyAsBearer } : {}),
    }),
    sessions,
    fingerprints,
    allowedOrigins,
    stop,
  };
}
