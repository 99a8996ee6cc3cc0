import { randomUUID } from 'node:crypto';
import { isolatedRedis } from '@wrs/testing';
import { newLockToken, releaseOwnedLocks } from './owned-lock';
import { RateLimiter } from './rate-limiter';

describe('owned locks against real Redis: a release deletes only what its holder still holds', () => {
  const spec = isolatedRedis();
  const lockKey = () => `${spec.env.namespace}:lock:${randomUUID()}`;

  it('releases its own locks and leaves a lock another holder set since', async () => {
    const { redis } = spec;
    const mine = { key: lockKey(), token: newLockToken() };
    const retaken = { key: lockKey(), token: newLockToken() };
    await redis.set(mine.key, mine.token, 'PX', 60_000);
    await redis.set(retaken.key, newLockToken(), 'PX', 60_000);
    expect(await releaseOwnedLocks(redis, [mine, retaken])).toBe(1);
    expect(await redis.exists(mine.key)).toBe(0);
    expect(await redis.exists(retaken.key)).toBe(1);
    await redis.del(retaken.key);
  });

  it("the rate limiter's release of a rider's lock compares before it deletes", async () => {
    const { env, redis } = spec;
    const limiter = new RateLimiter(redis, env.namespace);
    const lapsed = { key: lockKey(), token: newLockToken() };
    const nextHolder = newLockToken();
    await redis.set(lapsed.key, nextHolder, 'PX', 60_000);
    await limiter.release([lapsed]);
    expect(await redis.get(lapsed.key)).toBe(nextHolder);
    await limiter.release([{ key: lapsed.key, token: nextHolder }]);
    expect(await redis.exists(lapsed.key)).toBe(0);
  });
});
