import type { Redis } from 'ioredis';
import type { IdempotencyClaim } from '@wrs/messaging';

export type LockResult = 'acquired' | 'held-by-another' | 'cache-unavailable';

/**
 * The fast path of idempotency, in Redis: a short lock that tells a concurrent duplicate "still in
 * flight" (409, retryable), and the finished claim so a retry is answered without JetStream. Nothing
 * here is needed for correctness: exactly-one-run rests on the JetStream claim. So every Redis failure
 * degrades to "no cache" (and is counted), never to an error or a duplicate.
 */
export class IdempotencyCache {
  failures = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly retentionMs: number,
    // Longer than a request normally takes (JetStream answers in ms; its timeout is 5 s), short enough
    // that a retry after a crashed request is not kept waiting long.
    private readonly lockMs = 5_000,
  ) {}

  async finished(workspaceId: string, keyHash: string): Promise<IdempotencyClaim | null> {
    const raw = await this.attempt(() => this.redis.get(this.key('done', workspaceId, keyHash)), null);
    return raw ? (JSON.parse(raw) as IdempotencyClaim) : null;
  }

  async lock(workspaceId: string, keyHash: string): Promise<LockResult> {
    const result = await this.attempt(
      () => this.redis.set(this.key('lock', workspaceId, keyHash), '1', 'PX', this.lockMs, 'NX'),
      undefined,
    );
    if (result === undefined) {
      return 'cache-unavailable';
    }
    return result === 'OK' ? 'acquired' : 'held-by-another';
  }

  async finish(workspaceId: string, keyHash: string, claim: IdempotencyClaim): Promise<void> {
    await this.attempt(
      () =>
        this.redis
          .multi()
          .set(this.key('done', workspaceId, keyHash), JSON.stringify(claim), 'PX', this.retentionMs)
          .del(this.key('lock', workspaceId, keyHash))
          .exec(),
      null,
    );
  }

  async unlock(workspaceId: string, keyHash: string): Promise<void> {
    await this.attempt(() => this.redis.del(this.key('lock', workspaceId, keyHash)), 0);
  }

  private key(kind: 'lock' | 'done', workspaceId: string, keyHash: string): string {
    return `${this.prefix}:idem:${kind}:${workspaceId}:${keyHash}`;
  }

  private async attempt<T, F>(operation: () => Promise<T>, fallback: F): Promise<T | F> {
    try {
      return await operation();
    } catch {
      this.failures++;
      return fallback;
    }
  }
}
