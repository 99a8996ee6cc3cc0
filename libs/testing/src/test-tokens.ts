import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyIdOf, mintAccessToken, type SigningKey } from '@wrs/auth';

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

export function testToken(key: SigningKey, workspaceId: string, overrides: { ttlSeconds?: number; now?: number } = {}): string {
  return mintAccessToken(key, {
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    workspaceId,
    subject: 'test-user',
    ttlSeconds: overrides.ttlSeconds ?? 300,
    ...(overrides.now !== undefined ? { now: overrides.now } : {}),
  });
}
