import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { TakeRequest } from './gcra-take';
import { RateLeases } from './rate-leases';
import { RateLimiter, type RateDecision, type RatePolicy } from './rate-limiter';

const one: TakeRequest = { cells: 1, share: 1, giveBack: 0, ends: [] };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('rate limits taken a lease at a time, against real Redis', () => {
  let env: IsolatedEnvironment;
  const connections: Redis[] = [];

  /** A limiter on a connection of its own, as each replica has. */
  const limiter = (): RateLimiter => {
    const redis = new Redis(env.redisUrl);
    connections.push(redis);
    return new RateLimiter(redis, env.namespace);
  };
  /** Leases on a limiter of their own that count the takes they ask Redis for. */
  const countedLeases = (): { leases: RateLeases; takes: () => number } => {
    const rates = limiter();
    let takes = 0;
    const leases = new RateLeases((policies, request) => {
      takes += 1;
      return rates.take(policies, request);
    });
    return { leases, takes: () => takes };
  };
  /** The cells free for `policies` now, asking Redis without taking any. */
  const freeIn = async (rates: RateLimiter, policies: readonly RatePolicy[]): Promise<number | undefined> =>
    (await rates.take(policies, { cells: 0, share: 1, giveBack: 0, ends: [] }))?.leastFree;
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
    const redis = connections[0];
    if (redis) {
      const keys = await redis.keys(`${env.namespace}:rate:*`);
      if (keys.length > 0) {
        await redis.del(...keys);
      }
    }
    for (const connection of connections) {
      connection.disconnect();
    }
    await env.cleanup();
  });

  describe('the take', () => {
    it('takes several cells at once, the fewest any policy has, and takes back what it is given', async () => {
      const rates = limiter();
      const roomy = policy(100);
      const tight = { ...policy(3), name: 'token' };
      const first = await rates.take([roomy], { ...one, cells: 5 });
      expect(first).toMatchObject({ cells: 5, policies: [{ remaining: 95 }] });
      const back = await rates.take([roomy], { ...one, giveBack: 3, ends: first?.policies.map((p) => p.end) ?? [] });
      expect(back).toMatchObject({ cells: 1, policies: [{ remaining: 97 }] });
      expect(await rates.take([roomy, tight], { ...one, cells: 10 })).toMatchObject({
        cells: 3,
        leastFree: 0,
        policies: [{ remaining: 94 }, { remaining: 0 }],
      });
      const refused = await rates.take([roomy, tight], one);
      expect(refused?.cells).toBe(0);
      expect(refused?.waitMs).toBeGreaterThan(1_000_000); // a cell of 3 an hour: 20 minutes away
      // A refused take counts against no policy.
      expect(await rates.take([roomy], one)).toMatchObject({ cells: 1, policies: [{ remaining: 93 }] });
    });

    it('gives a lease at most its share of what is free, whatever it asks for', async () => {
      const rates = limiter();
      const policies = [policy(100)];
      expect((await rates.take(policies, { ...one, cells: 80 }))?.cells).toBe(80);
      // 20 free: an eighth of them is 2.
      expect((await rates.take(policies, { ...one, cells: 64, share: 8 }))?.cells).toBe(2);
    });

    it('gives back only the part of a lease still ahead: cells a refilled window never had are not made', async () => {
      const rates = limiter();
      const policies = [policy(40, 4)]; // a cell every 100 ms
      const a = await rates.take(policies, { ...one, cells: 40 });
      expect(a?.cells).toBe(40);
      await sleep(4_100); // the window refills
      expect((await rates.take(policies, { ...one, cells: 40 }))?.cells).toBe(40);
      // A's 36 unused cells are behind it now: giving them back adds nothing (a cell comes back every 100 ms by itself).
      const after = await rates.take(policies, { cells: 0, share: 1, giveBack: 36, ends: a?.policies.map((p) => p.end) ?? [] });
      expect(after?.leastFree).toBeLessThan(20);
    });
  });

  it('a busy key asks Redis once per lease, not once per request', async () => {
    const { leases, takes } = countedLeases();
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
    expect(takes()).toBeLessThan(2048 / 8);
  });

  it('two replicas together never admit more than the limit, and lose none of it', async () => {
    const [a, b] = [limiter(), limiter()];
    const policies = [policy(50)];
    const decisions: (RateDecision | null)[] = [];
    const client = async (rates: RateLimiter): Promise<void> => {
      for (let i = 0; i < 30; i++) {
        decisions.push(await rates.admit(policies));
      }
    };
    await Promise.all([a, b, a, b, a, b, a, b].map(client));
    const allowed = decisions.filter((d) => d?.allowed).length;
    expect(allowed).toBeLessThanOrEqual(50);
    const refusal = decisions.find((d) => d && !d.allowed);
    expect(refusal?.policies[0]?.remaining).toBe(0);
    expect(refusal?.retryAfterSeconds).toBeGreaterThan(60);
    // Once every lease has lapsed and given back, what was admitted and what is free make the limit.
    await eventually(async () => ((await freeIn(b, policies)) === 50 - allowed ? true : undefined), 10_000, 'every unused cell back');
  });

  it("a replica's unused cells go back when its lease lapses: another replica can use the whole limit", async () => {
    const [a, b] = [limiter(), limiter()];
    const policies = [policy(600, 36_000)]; // a cell a minute: none comes back by itself during the test
    let allowedA = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 9; i++) {
          const decision = await a.admit(policies);
          allowedA += decision?.allowed ? 1 : 0;
        }
      }),
    );
    expect(allowedA).toBe(72);
    // Until A's lease lapses and gives back, fewer are free than A used.
    await eventually(async () => ((await freeIn(b, policies)) === 600 - 72 ? true : undefined), 10_000, "A's unused cells back");
    let allowedB = 0;
    for (let i = 0; i < 600; i++) {
      const decision = await b.admit(policies);
      allowedB += decision?.allowed ? 1 : 0;
    }
    expect(allowedB).toBeGreaterThan(0);
    await eventually(
      async () => ((await freeIn(b, policies)) === 600 - 72 - allowedB ? true : undefined),
      10_000,
      'every unused cell back',
    );
  });

  it('near the limit, requests at once each ask Redis for their own cell side by side, not one after another', async () => {
    const rates = limiter();
    let inFlight = 0;
    let most = 0;
    const leases = new RateLeases(async (policies, request) => {
      most = Math.max(most, ++inFlight);
      try {
        return await rates.take(policies, request);
      } finally {
        inFlight -= 1;
      }
    });
    const policies = [policy(12)];
    expect((await leases.admit(policies))?.allowed).toBe(true); // 11 free: an eighth of it is under two cells
    const decisions = await Promise.all(Array.from({ length: 11 }, () => leases.admit(policies)));
    expect(decisions.every((d) => d?.allowed)).toBe(true);
    expect(most).toBeGreaterThan(1);
  });

  it('a take slower than the lifetime still serves the requests that waited for it', async () => {
    const rates = limiter();
    let takes = 0;
    const leases = new RateLeases(
      async (policies, request) => {
        takes += 1;
        await sleep(80);
        return rates.take(policies, request);
      },
      { lifetimeMs: 50, maxCells: 64, shareOfRemaining: 8 },
    );
    const policies = [policy(1000)];
    expect((await leases.admit(policies))?.allowed).toBe(true);
    expect((await leases.admit(policies))?.allowed).toBe(true);
    expect(takes).toBe(2);
  });

  it('near the limit each request asks Redis, and the remaining count goes down one by one', async () => {
    const { leases, takes } = countedLeases();
    const policies = [policy(10)];
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const decision = await leases.admit(policies);
      expect(decision?.allowed).toBe(true);
      remaining.push(decision?.policies[0]?.remaining ?? -1);
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(await leases.admit(policies)).toMatchObject({ allowed: false, policies: [{ remaining: 0 }] });
    expect(takes()).toBe(11);
  });

  describe('on a clock of its own', () => {
    let now = 0;
    let calls: TakeRequest[];
    let rates: RateLimiter;
    let leases: RateLeases;
    let duringTake = (): void => undefined;

    beforeEach(() => {
      now = 0;
      calls = [];
      duringTake = () => undefined;
      rates = limiter();
      leases = new RateLeases(
        async (policies, request) => {
          calls.push(request);
          const took = await rates.take(policies, request);
          duringTake();
          return took;
        },
        { lifetimeMs: 200, maxCells: 64, shareOfRemaining: 8 },
        () => now,
      );
    });

    it('a lease doubles while spent before it lapses; after a lapse the cells it did not use go back', async () => {
      const policies = [policy(1000, 1000)]; // a cell a second
      const decisions: (RateDecision | null)[] = [];
      for (let i = 0; i < 3; i++) {
        decisions.push(await leases.admit(policies));
      }
      expect(decisions.every((d) => d?.allowed)).toBe(true);
      // A key's first request takes its own cell; then a lease of one, spent before it lapsed, then two.
      expect(calls.map((c) => [c.cells, c.giveBack])).toEqual([
        [1, 0],
        [1, 0],
        [2, 0],
      ]);
      expect(calls.at(-1)?.share).toBe(8);
      // 4 cells taken; the lease of 2 still holds one: counted as remaining, and not in the time to reset.
      expect(decisions[2]?.policies[0]).toMatchObject({ remaining: 1000 - 3, resetSeconds: 3 });
      now += 201;
      const after = await leases.admit(policies);
      // The lapsed lease served one of two: one goes back, and the next lease asks for what that one served.
      expect(calls[3]).toMatchObject({ cells: 1, giveBack: 1 });
      expect(after?.policies[0]?.remaining).toBe(1000 - 4);
      expect((await rates.take(policies, one))?.policies[0]?.remaining).toBe(1000 - 5);
    });

    it('a lease lapses its lifetime after the take was asked for, not after the answer came', async () => {
      const policies = [policy(1000)];
      duringTake = () => (now += 150);
      await leases.admit(policies); // its own cell (a key's first request)
      await leases.admit(policies); // a lease of one, asked at 150, answered at 300
      await leases.admit(policies); // a lease of two, asked at 300, answered at 450: lapses at 500
      expect(calls).toHaveLength(3);
      now = 520;
      await leases.admit(policies);
      expect(calls).toHaveLength(4);
      expect(calls[3]?.giveBack).toBe(1);
    });

    it('a refusal stands, without asking Redis, for a lifetime at most; its Retry-After is when Redis said a cell is free', async () => {
      const policies = [policy(2, 1)]; // a cell every 500 ms
      expect((await leases.admit(policies))?.allowed).toBe(true);
      expect((await leases.admit(policies))?.allowed).toBe(true);
      const refused = await leases.admit(policies);
      expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
      expect(await leases.admit(policies)).toMatchObject({ allowed: false });
      expect(calls).toHaveLength(3);
      await sleep(600);
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
