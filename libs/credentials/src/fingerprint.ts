import { createHmac } from 'node:crypto';

/**
 * A keyed fingerprint of a secret (HMAC-SHA256): shows that two values are the same key without being
 * a hash an attacker could test guesses against offline.
 */
export function fingerprintSecret(secret: string, fingerprintKey: Buffer): string {
  return createHmac('sha256', fingerprintKey).update(secret).digest('base64url').slice(0, 22);
}

/** The last four characters, the only part of a stored key ever shown. */
export function lastFour(secret: string): string {
  return secret.slice(-4);
}
