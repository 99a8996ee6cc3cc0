import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyIdOf, type SigningKey } from '@wrs/auth';
import { accessClaims, signJwt } from './sign-jwt';

export const TEST_ISSUER = 'workload-run-service-dev';
export const TEST_AUDIENCE = 'workload-run-service';

/** A fresh Ed25519 key pair for one test file: the public half on disk (as services read it). */
export function testSigningKey(): { key: SigningKey; publicKeyFile: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const dir = mkdtempSync(join(tmpdir(), 'wrs-keys-'));
  const publicKeyFile = join(dir, 'public.pem');
  writeFileSync(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }));
  return { key: { kid: keyIdOf(publicKey), privateKey }, publicKeyFile };
}

/**
 * A token as an identity provider would issue it, signed synchronously (tests build tokens inline) by
 * a signer independent of the service's: jose verifies what another implementation signed, as in
 * production, where tokens come from an identity provider.
 */
export function testToken(
  key: SigningKey,
  workspaceId: string,
  overrides: { ttlSeconds?: number; now?: number; issuer?: string; audience?: string } = {},
): string {
  const now = Math.floor((overrides.now ?? Date.now()) / 1000);
  const claims = accessClaims(workspaceId, {
    iss: overrides.issuer ?? TEST_ISSUER,
    aud: overrides.audience ?? TEST_AUDIENCE,
    iat: now,
    nbf: now,
    exp: now + (overrides.ttlSeconds ?? 300),
    jti: randomUUID(),
  });
  return signJwt({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid }, claims, key.privateKey);
}
