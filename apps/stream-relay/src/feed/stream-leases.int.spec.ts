import type { Redis } from 'ioredis';
import { connectRedis } from '@wrs/messaging';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { StreamLeases, type StreamLease } from './stream-leases';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('stream leases against real Redis: held while open, renewed together, freed on close', () => {
  let env: IsolatedEnvironment;
  let redis: Redis;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    redis = await connectRedis(env.redisUrl, () => undefined);
  });

  afterAll(async () => {
    redis.disconnect();
    await env.cleanup();
  });

  const leaseOf = async (leases: StreamLeases, workspace: string, limit: number): Promise<StreamLease | undefined> => {
    const result = await leases.acquire(workspace, limit);
    return result.granted ? result.lease : undefined;
  };

  it('holds places across many lease lengths while open, in every workspace, and frees each on release', async () => {
    const leases = new StreamLeases(redis, env.namespace, 300, 100);
    const a = await Promise.all([leaseOf(leases, 'ws-a', 2), leaseOf(leases, 'ws-a', 2)]);
    const b = await leaseOf(leases, 'ws-b', 1);
    expect([...a, b].every(Boolean)).toBe(true);
    await sleep(1000); // more than three lease lengths: only the renewals keep them
    expect(await leaseOf(leases, 'ws-a', 2)).toBeUndefined();
    expect(await leaseOf(leases, 'ws-b', 1)).toBeUndefined();
    expect(await redis.pttl(`${env.namespace}:streams:ws-a`)).toBeGreaterThan(0);

    await a[0]!.release();
    await a[0]!.release(); // a second release frees nothing more
    const again = await leaseOf(leases, 'ws-a', 2);
    expect(again).toBeDefined();
    expect(await leaseOf(leases, 'ws-a', 2)).toBeUndefined();
    await Promise.all([a[1]!.release(), again!.release(), b!.release()]);
    expect(await redis.zcard(`${env.namespace}:streams:ws-a`)).toBe(0);
    expect(await redis.zcard(`${env.namespace}:streams:ws-b`)).toBe(0);
  });

  it('stops renewing once it holds nothing: what it released stays released', async () => {
    const leases = new StreamLeases(redis, env.namespace, 300, 100);
    const lease = await leaseOf(leases, 'ws-c', 1);
    await lease!.release();
    await sleep(250);
    expect(await redis.zcard(`${env.namespace}:streams:ws-c`)).toBe(0);
  });
});
