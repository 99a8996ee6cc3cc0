import type { Redis } from 'ioredis';
import { LuaScript, type IdempotencyClaim } from '@wrs/messaging';

export type LockResult = 'acquired' | 'held-by-another' | 'cache-unavailable';

/**
 * What the cache knows of a key when a create begins: its finished claim, or who holds its lock and
 * the workspace's count of unfinished runs (undefined when Redis holds none, see ActiveRunsQuota).
 */
export type BeginResult = { readonly finished: IdempotencyClaim } | { readonly lock: LockResult; readonly activeRuns?: number | undefined };

/** The finished claim if there is one, else the lock if free and the active-runs count: one round trip. */
const BEGIN_SCRIPT = new LuaScript(`
local done = redis.call('GET', KEYS[1])
if done then return {'finished', done} end
local active = redis.call('GET', KEYS[3])
if redis.call('SET', KEYS[2], '1', 'PX', ARGV[1], 'NX') then return {'acquired', active} end
return {'held', active}`);

/** Records the finished claim, releases the lock and, for a new run, counts it where a count is kept. */
const FINISH_SCRIPT = new LuaScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[2])
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[3]) == 1 then redis.call('INCR', KEYS[3]) end
return 1`);

/**
 * The fast path of idempotency, in Redis: a short lock that tells a concurrent duplicate "still in
 * flight" (409, retryable), and the finished claim so a retry is answered without JetStream. Nothing
 * here is needed for correctness: exactly-one-run rests on the JetStream claim. So every Redis failure
 * degrades to "no cache" (and is counted), never to an error or a duplicate. The same round trips read
 * and count the workspace's unfinished runs for the quota (ActiveRunsQuota).
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
    const keys = [this.key('done', workspaceId, keyHash), this.key('lock', workspaceId, keyHash), this.activeRunsKey(workspaceId)];
    const reply = await this.attempt(() => BEGIN_SCRIPT.run(this.redis, keys, [this.lockMs]) as Promise<[string, (string | null)?]>, undefined);
    if (reply === undefined) {
      return { lock: 'cache-unavailable' };
    }
    if (reply[0] === 'finished' && reply[1]) {
      return { finished: JSON.parse(reply[1]) as IdempotencyClaim };
    }
    const activeRuns = typeof reply[1] === 'string' ? Number(reply[1]) : undefined;
    return { lock: reply[0] === 'acquired' ? 'acquired' : 'held-by-another', activeRuns };
  }

  /** Records the finished claim and releases the lock (and counts a new run); false if Redis could not be told. */
  async finish(workspaceId: string, keyHash: string, claim: IdempotencyClaim, newRun: boolean): Promise<boolean> {
    const keys = [this.key('done', workspaceId, keyHash), this.key('lock', workspaceId, keyHash), this.activeRunsKey(workspaceId)];
    const done = await this.attempt(() => FINISH_SCRIPT.run(this.redis, keys, [JSON.stringify(claim), this.retentionMs, newRun ? '1' : '0']), null);
    return done !== null;
  }

  /** Sets the workspace's count of unfinished runs (from Postgres) for `ttlMs`; a failure only means the next create counts again. */
  async setActiveRuns(workspaceId: string, count: number, ttlMs: number): Promise<void> {
    await this.attempt(() => this.redis.set(this.activeRunsKey(workspaceId), count, 'PX', ttlMs), null);
  }

  async unlock(workspaceId: string, keyHash: string): Promise<void> {
    await this.attempt(() => this.redis.del(this.key('lock', workspaceId, keyHash)), 0);
  }

  private activeRunsKey(workspaceId: string): string {
    return `${this.prefix}:quota:active:${workspaceId}`;
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
