import { fingerprintSecret } from '@wrs/credentials';
import type { Redis } from 'ioredis';
import type { CredentialFingerprintCheck } from './principal';

/**
 * Keyed fingerprints of stored provider credentials in Redis, so any replica can refuse a bearer value
 * that is one of them. Defence in depth: if Redis is down the answer is "no" and the value still fails.
 */
export class CredentialFingerprintIndex implements CredentialFingerprintCheck {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly fingerprintKey: Buffer | null,
  ) {}

  fingerprint(secret: string): string | null {
    return this.fingerprintKey ? fingerprintSecret(secret, this.fingerprintKey) : null;
  }

  async matches(value: string): Promise<boolean> {
    const fingerprint = this.fingerprint(value);
    if (!fingerprint) {
      return false;
    }
    return (await this.redis.sismember(this.key(), fingerprint).catch(() => 0)) === 1;
  }

  async add(fingerprint: string): Promise<void> {
    await this.redis.sadd(this.key(), fingerprint).catch(() => 0);
  }

  async remove(fingerprint: string): Promise<void> {
    await this.redis.srem(this.key(), fingerprint).catch(() => 0);
  }

  private key(): string {
    return `${this.prefix}:credential-fingerprints`;
  }
}
