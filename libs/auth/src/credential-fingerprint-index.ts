import { fingerprintSecret } from '@wrs/credentials';
import type { Redis } from 'ioredis';
import type { CredentialFingerprintCheck } from './principal';

/**
 * The keyed fingerprints of every stored provider credential, in a Redis set that every api and relay
 * replica can ask: "is this bearer value one of our stored provider keys?". A defence in depth on top
 * of the shape check: when Redis is away the answer is "no", and the value still fails as a token.
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
