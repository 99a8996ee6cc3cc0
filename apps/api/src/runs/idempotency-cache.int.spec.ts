import { randomUUID } from 'node:crypto';
import { isolatedRedis } from '@wrs/testing';
import { beginKeys, IdempotencyCache, type BeginResult } from './idempotency-cache';

/**
 * A create's lock belongs to the request that took it: a request slower than the lock's lifetime must
 * not release the lock of the request that took it after it lapsed. Real Redis; a lapse is the key's
 * deletion, which is what its expiry does.
 */
describe('the idempotency lock: only its holder releases it', () => {
  const workspace = 'ws-lock-owner';
  const claim = { runId: randomUUID(), fingerprint: 'f', createdAt: '2026-11-27T18:00:00.000Z' };
  const spec = isolatedRedis();
  let cache: IdempotencyCache;
  const redis = () => spec.redis;
  const namespace = () => spec.env.namespace;

  beforeAll(() => {
    cache = new IdempotencyCache(spec.redis, spec.env.namespace, 60_000);
  });

  /** The token of a lock `begin` took; fails the test when it took none. */
  const tokenOf = (begun: BeginResult): string => {
    if (!('lock' in begun) || begun.lock !== 'acquired') {
      throw new Error(`the request should have taken the lock: ${JSON.stringify(begun)}`);
    }
    return begun.token;
  };

  /** The first request's lock lapses and a second request takes it; both tokens, and the lock's key. */
  const lapsedAndRetaken = async () => {
    const keyHash = randomUUID();
    const lockKey = beginKeys(namespace(), workspace, keyHash)[1];
    const first = tokenOf(await cache.begin(workspace, keyHash));
    await redis().del(lockKey);
    const second = tokenOf(await cache.begin(workspace, keyHash));
    return { keyHash, lockKey, first, second };
  };

  it("a late unlock leaves the next request's lock: a third request is told the key is in flight", async () => {
    const { keyHash, lockKey, first, second } = await lapsedAndRetaken();
    await cache.unlock(workspace, keyHash, first);
    expect(await redis().get(lockKey)).toBe(second);
    expect(await cache.begin(workspace, keyHash)).toMatchObject({ lock: 'held-by-another' });
    await cache.unlock(workspace, keyHash, second);
    expect(await redis().exists(lockKey)).toBe(0);
  });

  it("a late finish records its claim and leaves the next request's lock", async () => {
    const { keyHash, lockKey, first, second } = await lapsedAndRetaken();
    expect(await cache.finish(workspace, keyHash, claim, true, first)).toBe(true);
    expect(await redis().get(lockKey)).toBe(second);
    expect(await cache.begin(workspace, keyHash)).toEqual({ finished: claim });
  });

  it('a finish releases its own lock, and one that took no lock (Redis was unreachable at its begin) releases none', async () => {
    const keyHash = randomUUID();
    const lockKey = beginKeys(namespace(), workspace, keyHash)[1];
    const held = tokenOf(await cache.begin(workspace, keyHash));
    await cache.finish(workspace, keyHash, claim, true, undefined);
    expect(await redis().get(lockKey)).toBe(held);
    await cache.finish(workspace, keyHash, claim, true, held);
    expect(await redis().exists(lockKey)).toBe(0);
  });

  it("a begin run again with the same token (a reply lost and the command resent) finds the lock its own, not another's", async () => {
    const keyHash = randomUUID();
    const lockKey = beginKeys(namespace(), workspace, keyHash)[1];
    const held = tokenOf(await cache.begin(workspace, keyHash));
    expect(await cache.begin(workspace, keyHash, held)).toMatchObject({ lock: 'acquired', token: held });
    expect(await redis().get(lockKey)).toBe(held);
  });
});
