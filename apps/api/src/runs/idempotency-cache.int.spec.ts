import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { beginKeys, IdempotencyCache } from './idempotency-cache';

/**
 * A create's lock belongs to the request that took it: a request slower than the lock's lifetime must
 * not release the lock of the request that took it after it lapsed. Real Redis; a lapse is the key's
 * deletion, which is what its expiry does.
 */
describe('the idempotency lock: only its holder releases it', () => {
  const workspace = 'ws-lock-owner';
  const claim = { runId: randomUUID(), fingerprint: 'f', createdAt: '2026-11-27T18:00:00.000Z' };
  let env: IsolatedEnvironment;
  let redis: Redis;
  let cache: IdempotencyCache;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    redis = new Redis(env.redisUrl);
    cache = new IdempotencyCache(redis, env.namespace, 60_000);
  });

  afterAll(async () => {
    redis.disconnect();
    await env.cleanup();
  });

  /** The first request's lock lapses and a second request takes it; both answers, and the lock's key. */
  const lapsedAndRetaken = async () => {
    const keyHash = randomUUID();
    const lockKey = beginKeys(env.namespace, workspace, keyHash)[1];
    const first = await cache.begin(workspace, keyHash);
    await redis.del(lockKey);
    const second = await cache.begin(workspace, keyHash);
    if (!('lock' in first) || first.lock !== 'acquired' || !('lock' in second) || second.lock !== 'acquired') {
      throw new Error(`both requests should have taken the lock in turn: ${JSON.stringify([first, second])}`);
    }
    return { keyHash, lockKey, first, second };
  };

  it("a late unlock leaves the next request's lock: a third request is told the key is in flight", async () => {
    const { keyHash, lockKey, first, second } = await lapsedAndRetaken();
    await cache.unlock(workspace, keyHash, first.token);
    expect(await redis.get(lockKey)).toBe(second.token);
    expect(await cache.begin(workspace, keyHash)).toMatchObject({ lock: 'held-by-another' });
    await cache.unlock(workspace, keyHash, second.token);
    expect(await redis.exists(lockKey)).toBe(0);
  });

  it("a late finish records its claim and leaves the next request's lock", async () => {
    const { keyHash, lockKey, first, second } = await lapsedAndRetaken();
    expect(await cache.finish(workspace, keyHash, claim, true, first.token)).toBe(true);
    expect(await redis.get(lockKey)).toBe(second.token);
    expect(await cache.begin(workspace, keyHash)).toEqual({ finished: claim });
  });

  it('a finish releases its own lock, and one without a lock releases none', async () => {
    const keyHash = randomUUID();
    const lockKey = beginKeys(env.namespace, workspace, keyHash)[1];
    const held = await cache.begin(workspace, keyHash);
    expect(held).toMatchObject({ lock: 'acquired' });
    await cache.finish(workspace, randomUUID(), claim, true, undefined);
    expect(await redis.exists(lockKey)).toBe(1);
    await cache.finish(workspace, keyHash, claim, true, 'lock' in held && held.lock === 'acquired' ? held.token : 'none');
    expect(await redis.exists(lockKey)).toBe(0);
  });
});
