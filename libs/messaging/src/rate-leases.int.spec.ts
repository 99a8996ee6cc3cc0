import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { RateLeases } from './rate-leases';
import { RateLimiter, type RateDecision, type RatePolicy } from './rate-limiter';

describe('rate limits taken a lease at a time, against real Redis', () => {
  let env: IsolatedEnvironment;
  const connections: Redis[] = [];

  /** A limiter on a connection of its own, as each replica has. */
  const limiter = (): RateLimiter => {
    const redis = new Redis(env.redisUrl);
    connections.push(redis);
    return new RateLimiter(redis, env.namespace);
  };
  const policy = (limit: number, windowSeconds = 3600): RatePolicy => ({
    name: 'workspace',
    key: `ws:${randomUUID()}`,
    limit,
    windowSeconds,
  });

  beforeAll(async () => {
    env = await isolatedEnvironment();
  });

  afterAll(async () => {
    for (const redis of connections) {
      redis.disconnect();
    }
    await env.cleanup();
  });

  it('takes several cells at once, the fewest any policy has, and takes back what it is given', async () => {
    const rates = limiter();
    const roomy = policy(100);
    const tight = { ...policy(3), name: 'token' };
    expect(await rates.take([roomy], 5)).toMatchObject({ cells: 5, decision: { allowed: true, policies: [{ remaining: 95 }] } });
    expect(await rates.take([roomy], 1, 3)).toMatchObject({ cells: 1, decision: { policies: [{ remaining: 97 }] } });
    const both = await rates.take([roomy, tight], 10);
    expect(both).toMatchObject({ cells: 3, decision: { allowed: true, policies: [{ remaining: 94 }, { remaining: 0 }] } });
    const refused = await rates.take([roomy, tight], 1);
    expect(refused?.cells).toBe(0);
    expect(refused?.decision.allowed).toBe(false);
    expect(refused?.waitMs).toBeGreaterThan(1_000_000); // a cell of 3 an hour: 20 minutes away
    // A refused take counts against no policy.
    expect(await rates.take([roomy], 1)).toMatchObject({ cells: 1, decision: { policies: [{ remaining: 93 }] } });
  });

  it('a busy key asks Redis once per lease, not once per request', async () => {
    const rates = limiter();
    let takes = 0;
    const leases = new RateLeases((policies, cells, giveBack) => {
      takes += 1;
      return rates.take(policies, cells, giveBack);
    });
    const policies = [policy(1_000_000)];
    let allowed = 0;
    const client = async (requests: number): Promise<void> => {
      for (let i = 0; i < requests; i++) {
        const decision = await leases.admit(policies);
        allowed += decision?.allowed ? 1 : 0;
      }
    };
    await Promise.all(Array.from({ length: 64 }, () => client(32)));
    expect(allowed).toBe(2048);
    // One take per request would be 2048; leases of up to 64 cells need a few dozen.
    expect(takes).toBeLessThan(2048 / 8);
  });

  it('two replicas together never admit more than the limit, and admit all of it', async () => {
    const [a, b] = [limiter(), limiter()];
    const policies = [policy(50)];
    const decisions: (RateDecision | null)[] = [];
    const client = async (rates: RateLimiter): Promise<void> => {
      for (let i = 0; i < 30; i++) {
        decisions.push(await rates.admit(policies));
      }
    };
    await Promise.all([a, b, a, b, a, b, a, b].map(client));
    expect(decisions.filter((d) => d?.allowed)).toHaveLength(50);
    const refusals = decisions.filter((d) => d && !d.allowed);
    expect(refusals).toHaveLength(240 - 50);
    expect(refusals[0]?.policies[0]?.remaining).toBe(0);
    expect(refusals[0]?.retryAfterSeconds).toBeGreaterThan(60);
  });

  it('near the limit each request is decided by Redis: the remaining count goes down one by one', async () => {
    const rates = limiter();
    const policies = [policy(10)];
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const decision = await rates.admit(policies);
      expect(decision?.allowed).toBe(true);
      remaining.push(decision?.policies[0]?.remaining ?? -1);
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(await rates.admit(policies)).toMatchObject({ allowed: false, policies: [{ remaining: 0 }] });
  });

  describe('on a clock of its own', () => {
    let now = 0;
    let calls: { asked: number; giveBack: number }[];
    let rates: RateLimiter;
    let leases: RateLeases;

    beforeEach(() => {
      calls = [];
      rates = limiter();
      leases = new RateLeases(
        (policies, cells, giveBack) => {
          calls.push({ asked: cells, giveBack });
          return rates.take(policies, cells, giveBack);
        },
        { lifetimeMs: 200, maxCells: 64, shareOfRemaining: 8 },
        () => now,
      );
    });

    it('a lease doubles while spent before it lapses; after a lapse the cells it did not use go back', async () => {
      const policies = [policy(1000)];
      for (let i = 0; i < 4; i++) {
        expect((await leases.admit(policies))?.allowed).toBe(true);
      }
      expect(calls).toEqual([
        { asked: 1, giveBack: 0 },
        { asked: 2, giveBack: 0 },
        { asked: 4, giveBack: 0 },
      ]);
      now += 201;
      const after = await leases.admit(policies);
      // The lease of 4 served one: three go back, and the next lease asks for what that one served.
      expect(calls[3]).toEqual({ asked: 1, giveBack: 3 });
      expect(after?.policies[0]?.remaining).toBe(1000 - 5);
      expect((await rates.take(policies, 1))?.decision.policies[0]?.remaining).toBe(1000 - 6);
    });

    it('a refusal stands, without asking Redis, until Redis said a cell is free', async () => {
      const policies = [policy(2, 1)]; // a cell every 500 ms
      expect((await leases.admit(policies))?.allowed).toBe(true);
      expect((await leases.admit(policies))?.allowed).toBe(true);
      const refused = await leases.admit(policies);
      expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
      expect(await leases.admit(policies)).toMatchObject({ allowed: false });
      expect(calls).toHaveLength(3);
      await new Promise((resolve) => setTimeout(resolve, 600));
      now += 600;
      expect((await leases.admit(policies))?.allowed).toBe(true);
      expect(calls).toHaveLength(4);
    });
  });

  it('fails open, as one request at a time did, when Redis is unreachable', async () => {
    const redis = new Redis(env.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    connections.push(redis);
    const rates = new RateLimiter(redis, env.namespace);
    expect(await rates.admit([policy(10)])).toBeNull();
    expect(rates.failOpenCount).toBe(1);
  });
});
