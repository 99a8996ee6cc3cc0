import { generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * The Secrets the manifests reference and never render (an applied placeholder would overwrite the
 * real one): the operator creates them as docs/operations.md says. Name -> keys.
 */
export const OPERATOR_SECRETS = {
  'workload-run-service': ['database-url'],
  'workload-run-service-kek': ['k1.pem', 'k1.pub.pem', 'fingerprint.key'],
} as const;

/** Test material for every operator Secret: the test's database, a fresh X25519 KEK pair and fingerprint key. */
export function testOperatorSecrets(databaseUrl: string): Record<string, Record<string, string>> {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return {
    'workload-run-service': { 'database-url': databaseUrl },
    'workload-run-service-kek': {
      'k1.pem': privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      'k1.pub.pem': publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      'fingerprint.key': randomBytes(32).toString('base64'),
    },
  };
}
