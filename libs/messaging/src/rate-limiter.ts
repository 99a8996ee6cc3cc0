import type { Redis } from 'ioredis';
import { LuaScript } from './lua-script';
import { releaseOwnedLocks, type HeldLock } from './owned-lock';
import { GCRA_TAKE, gcraTakeArgs, parseGcraTake, type RateTake, type TakeRequest } from './gcra-take';
import { DEFAULT_RATE_LEASES, RateLeases, type RateLeaseSettings } from './rate-leases';

/**
 * GCRA (the generic cell rate algorithm) over several keys at once, in one Lua step: a request is
 * allowed only if every policy allows it, and then counts against all of them; a refused request
 * counts against none. Time comes from Redis itself, so every replica shares one clock.
 */
const GCRA_FUNCTION = `
local function gcra(keys, argv)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local n = #keys
  local tats = {}
  local wait = 0
  for i = 1, n do
    local limit = tonumber(argv[2 * i - 1])
    local window = tonumber(argv[2 * i])
    local interval = window / limit
    local tat = tonumber(redis.call('GET', keys[i]) or now)
    if tat < now then tat = now end
    local new_tat = tat + interval
    local allow_at = new_tat - window
    if now < allow_at and allow_at - now > wait then wait = allow_at - now end
    tats[i] = new_tat
  end
  local result = {}
  if wait > 0 then
    table.insert(result, 0)
    table.insert(result, wait)
  else
    table.insert(result, 1)
    table.insert(result, 0)
  end
  for i = 1, n do
    local limit = tonumber(argv[2 * i - 1])
    local window = tonumber(argv[2 * i])
    local interval = window / limit
    local tat = tats[i]
    if wait > 0 then
      tat = tonumber(redis.call('GET', keys[i]) or now)
      if tat < now then tat = now end
    else
      redis.call('SET', keys[i], tat, 'PX', math.ceil(tat - now) + 1)
    end
    local remaining = math.floor((now + window - tat) / interval)
    if remaining < 0 then remaining = 0 end
    table.insert(result, remaining)
    table.insert(result, math.ceil((tat - now) / 1000))
  end
  return result
end
`;

const GCRA = new LuaScript(`${GCRA_FUNCTION}return gcra(KEYS, ARGV)`);

/**
 * The rate-limit script with a route's own Redis work in the same round trip: `riderFunction` defines
 * `local function rider(keys, argv)`, run only when the request is allowed, its table answered beside
 * the decision. ARGV[1] says how many of the keys are the policies'.
 */
export function rateLimitedScript(riderFunction: string): LuaScript {
  return new LuaScript(`${GCRA_FUNCTION}${riderFunction}
local n = tonumber(ARGV[1])
local pk, pa, rk, ra = {}, {}, {}, {}
for i = 1, #KEYS do if i <= n then pk[#pk + 1] = KEYS[i] else rk[#rk + 1] = KEYS[i] end end
for i = 2, #ARGV do if i <= 2 * n + 1 then pa[#pa + 1] = ARGV[i] else ra[#ra + 1] = ARGV[i] end end
local decided = gcra(pk, pa)
if decided[1] == 1 then return {decided, rider(rk, ra)} end
return {decided}`);
}

/** A route's Redis work for one request, done in the rate limit's round trip (see rateLimitedScript). */
export interface RateRider {
  readonly script: LuaScript;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

export interface RatePolicy {
  /** Shown in the RateLimit headers, e.g. `workspace` or `token`. */
  readonly name: string;
  readonly key: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** The rider's answer, when one rode along and the request was allowed. */
  readonly rider?: unknown;
  /** Seconds until the request would be allowed (0 when allowed). */
  readonly retryAfterSeconds: number;
  readonly policies: readonly (RatePolicy & { remaining: number; resetSeconds: number })[];
}

export class RateLimiter {
  /** Decisions made without Redis (fail open): a number an operator watches. */
  failOpenCount = 0;
  private readonly leases: RateLeases;

  constructor(
    private readonly redis: Redis,
    /** Of every key the limiter writes (riders name theirs with it too). */
    readonly prefix: string,
    leaseSettings: RateLeaseSettings = DEFAULT_RATE_LEASES,
  ) {
    this.leases = new RateLeases((policies, request) => this.take(policies, request), leaseSettings);
  }

  /**
   * A request's decision from cells this process took ahead, asking Redis only when its lease for these
   * policies is spent or lapsed (RateLeases). Null when Redis is unreachable (fail open).
   */
  async admit(policies: readonly RatePolicy[]): Promise<RateDecision | null> {
    const decision = await this.leases.admit(policies);
    if (!decision) {
      this.failOpenCount++;
    }
    return decision;
  }

  /** One take of cells for a lease (see GCRA_TAKE); null when Redis is unreachable. */
  async take(policies: readonly RatePolicy[], request: TakeRequest): Promise<RateTake | null> {
    try {
      return parseGcraTake(await GCRA_TAKE.run(this.redis, this.keysOf(policies), gcraTakeArgs(policies, request)), policies.length);
    } catch {
      return null;
    }
  }

  /** Null when Redis is unreachable: the caller lets the request through (fail open). */
  async check(policies: readonly RatePolicy[], rider?: RateRider): Promise<RateDecision | null> {
    const keys = this.keysOf(policies);
    const args = argsOf(policies);
    let raw: unknown;
    let riderReply: unknown;
    try {
      if (rider) {
        const reply = (await rider.script.run(
          this.redis,
          [...keys, ...rider.keys],
          [policies.length, ...args, ...rider.args],
        )) as unknown[];
        raw = reply[0];
        riderReply = reply[1];
      } else {
        raw = await GCRA.run(this.redis, keys, args);
      }
    } catch {
      this.failOpenCount++;
      return null;
    }
    const values = (raw as (number | string)[]).map(Number);
    const decision = decisionOf(policies, values[0] === 1, values[1] ?? 0, values.slice(2));
    return riderReply !== undefined ? { ...decision, rider: riderReply } : decision;
  }

  private keysOf(policies: readonly RatePolicy[]): string[] {
    return policies.map((p) => `${this.prefix}:rate:${p.key}`);
  }

  /** Releases locks a rider took that nobody else took over (a lock no route took); a failure leaves them to their expiry. */
  async release(locks: readonly HeldLock[]): Promise<void> {
    try {
      await releaseOwnedLocks(this.redis, locks);
    } catch {
      // They expire by themselves.
    }
  }
}

function argsOf(policies: readonly RatePolicy[]): number[] {
  return policies.flatMap((p) => [p.limit, p.windowSeconds * 1000]);
}

/** A script's answer as a decision: `perPolicy` holds each policy's remaining cells and seconds to reset, in turn. */
function decisionOf(policies: readonly RatePolicy[], allowed: boolean, waitMs: number, perPolicy: readonly number[]): RateDecision {
  return {
    allowed,
    retryAfterSeconds: Math.ceil(waitMs / 1000),
    policies: policies.map((p, i) => ({ ...p, remaining: perPolicy[2 * i] ?? 0, resetSeconds: perPolicy[2 * i + 1] ?? 0 })),
  };
}

/** The IETF RateLimit-Policy and RateLimit header fields (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(decision: RateDecision): { 'RateLimit-Policy': string; RateLimit: string } {
  return {
    'RateLimit-Policy': decision.policies.map((p) => `"${p.name}";q=${p.limit};w=${p.windowSeconds}`).join(', '),
    RateLimit: decision.policies.map((p) => `"${p.name}";r=${p.remaining};t=${p.resetSeconds}`).join(', '),
  };
}
