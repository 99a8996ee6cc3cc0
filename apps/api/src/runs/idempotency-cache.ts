import type { Redis } from 'ioredis';
import { LuaScript, type IdempotencyClaim } from '@wrs/messaging';

export type LockResult = 'acquired' | 'held-by-another' | 'cache-unavailable';

/** What the cache knows of a key when a create begins: its finished claim, or who holds its lock. */
export type BeginResult = { readonly finished: IdempotencyClaim } | { readonly lock: LockResult };

/** The finished claim if there is one, else the lock if free: one round trip for both questions. */
const BEGIN_SCRIPT = new LuaScript(`
local done = redis.call('GET', KEYS[1])
if done then return {'finished', done} end
if redis.call('SET', KEYS[2], '1', 'PX', ARGV[1], 'NX') then return {'acquired'} end
return {'held'}`);

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

  async begin(workspaceId: string, keyHash: string): Promise<BeginResult> {
    const reply = await this.attempt(
      () =>
        BEGIN_SCRIPT.run(this.redis, [this.key('done', workspaceId, keyHash), this.key('lock', workspaceId, keyHash)], [this.lockMs]) as Promise<
          [string, string?]
        >,
      undefined,
    );
    if (reply === undefined) {
      return { lock: 'cache-unavailable' };
    }
    if (reply[0] === 'finished' && reply[1]) {
      return { finished: JSON.parse(reply[1]) as IdempotencyClaim };
    }
    return { lock: reply[0] === 'acquired' ? 'acquired' : 'held-by-another' };
  }

  /** Records the finished claim and releases the lock; false if Redis could not be told. */
  async finish(workspaceId: string, keyHash: string, claim: IdempotencyClaim): Promise<boolean> {
    const done = await this.attempt(
      () =>
        this.redis
          .multi()
          .set(this.key('done', workspaceId, keyHash), JSON.stringify(claim), 'PX', this.retentionMs)
          .del(this.key('lock', workspaceId, keyHash))
          .exec(),
      null,
    );
    return done !== null && done.every(([error]) => error === null);
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
