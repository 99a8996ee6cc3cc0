import type { Redis } from 'ioredis';
import { LuaScript, newLockToken, releaseOwnedLocks, type IdempotencyClaim } from '@wrs/messaging';

/**
 * Who holds a key's lock: this request (with the token it set the lock to, which only it may release),
 * another, or nobody knows (Redis unreachable).
 */
export type LockResult = { readonly lock: 'acquired'; readonly token: string } | { readonly lock: 'held-by-another' | 'cache-unavailable' };

/**
 * What the cache knows of a key when a create begins: its finished claim, or who holds its lock and
 * the workspace's count of unfinished runs (undefined when Redis holds none, see ActiveRunsQuota).
 */
export type BeginResult = { readonly finished: IdempotencyClaim } | (LockResult & { readonly activeRuns?: number | undefined });

/**
 * The finished claim if there is one, else the lock (set to this request's token, argv[2]) if free and
 * the active-runs count: one round trip. A lock that already holds the token is this request's own: the
 * same script run again when its reply was lost and the client sent it once more.
 */
export const BEGIN_FUNCTION = `
local function begin(keys, argv)
  local done = redis.call('GET', keys[1])
  if done then return {'finished', done} end
  local active = redis.call('GET', keys[3])
  if redis.call('SET', keys[2], argv[2], 'PX', argv[1], 'NX') then return {'acquired', active} end
  if redis.call('GET', keys[2]) == argv[2] then return {'acquired', active} end
  return {'held', active}
end
`;

const BEGIN_SCRIPT = new LuaScript(`${BEGIN_FUNCTION}return begin(KEYS, ARGV)`);

/** How long a create's lock stands: longer than a request normally takes (JetStream answers in ms, times out at 5 s), short enough that a retry after a crash does not wait long. */
export const IDEMPOTENCY_LOCK_MS = 5_000;

/** The keys a create's begin reads and writes: finished claim, lock, active-runs count. */
export function beginKeys(prefix: string, workspaceId: string, keyHash: string): [string, string, string] {
  return [
    `${prefix}:idem:done:${workspaceId}:${keyHash}`,
    `${prefix}:idem:lock:${workspaceId}:${keyHash}`,
    `${prefix}:quota:active:${workspaceId}`,
  ];
}

/** The begin script's answer to a request that offered `token` for the lock. */
export function beginResultOf(reply: [string, (string | null)?], token: string): BeginResult {
  if (reply[0] === 'finished' && reply[1]) {
    return { finished: JSON.parse(reply[1]) as IdempotencyClaim };
  }
  const activeRuns = typeof reply[1] === 'string' ? Number(reply[1]) : undefined;
  return reply[0] === 'acquired' ? { lock: 'acquired', token, activeRuns } : { lock: 'held-by-another', activeRuns };
}

/**
 * Records the finished claim, releases the lock if this request (ARGV[4], empty when it took none) still
 * holds it and, for a new run, counts it where a count is kept.
 */
const FINISH_SCRIPT = new LuaScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[4] ~= '' and redis.call('GET', KEYS[2]) == ARGV[4] then redis.call('DEL', KEYS[2]) end
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[3]) == 1 then redis.call('INCR', KEYS[3]) end
return 1`);

/**
 * Idempotency's fast path in Redis: a short in-flight lock (409) and the finished claim. Correctness rests
 * on the JetStream claim, so any Redis failure just means "no cache" (counted). The same round trips also
 * read and count the workspace's unfinished runs for ActiveRunsQuota.
 */
export class IdempotencyCache {
  failures = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly retentionMs: number,
    private readonly lockMs = IDEMPOTENCY_LOCK_MS,
  ) {}

  /** `token`: the one to set the lock to, a new one unless a test says which. */
  async begin(workspaceId: string, keyHash: string, token = newLockToken()): Promise<BeginResult> {
    const reply = await this.attempt(
      () =>
        BEGIN_SCRIPT.run(this.redis, beginKeys(this.prefix, workspaceId, keyHash), [this.lockMs, token]) as Promise<
          [string, (string | null)?]
        >,
      undefined,
    );
    return reply === undefined ? { lock: 'cache-unavailable' } : beginResultOf(reply, token);
  }

  /**
   * Records the finished claim, releases the lock `lockToken` holds (a lock that lapsed and was taken by
   * another request stays; no token: this request took none) and counts a new run; false if Redis could
   * not be told.
   */
  async finish(workspaceId: string, keyHash: string, claim: IdempotencyClaim, newRun: boolean, lockToken?: string): Promise<boolean> {
    const keys = beginKeys(this.prefix, workspaceId, keyHash);
    const done = await this.attempt(
      () => FINISH_SCRIPT.run(this.redis, keys, [JSON.stringify(claim), this.retentionMs, newRun ? '1' : '0', lockToken ?? '']),
      null,
    );
    return done !== null;
  }

  /** Sets the workspace's count of unfinished runs (from Postgres) for `ttlMs`; a failure only means the next create counts again. */
  async setActiveRuns(workspaceId: string, count: number, ttlMs: number): Promise<void> {
    await this.attempt(() => this.redis.set(beginKeys(this.prefix, workspaceId, '')[2], count, 'PX', ttlMs), null);
  }

  /** Releases the lock if `lockToken` still holds it; a failure leaves it to its expiry. */
  async unlock(workspaceId: string, keyHash: string, lockToken: string): Promise<void> {
    await this.attempt(
      () => releaseOwnedLocks(this.redis, [{ key: beginKeys(this.prefix, workspaceId, keyHash)[1], token: lockToken }]),
      0,
    );
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
