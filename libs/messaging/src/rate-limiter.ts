import type { Redis } from 'ioredis';
import { LuaScript } from './lua-script';

/**
 * GCRA (the generic cell rate algorithm) over several keys at once, in one Lua step: a request is
 * allowed only if every policy allows it, and then counts against all of them; a refused request
 * counts against none. Time comes from Redis itself, so every replica shares one clock.
 */
const GCRA = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS
local tats = {}
local wait = 0
for i = 1, n do
  local limit = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  local interval = window / limit
  local tat = tonumber(redis.call('GET', KEYS[i]) or now)
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
  local limit = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  local interval = window / limit
  local tat = tats[i]
  if wait > 0 then
    tat = tonumber(redis.call('GET', KEYS[i]) or now)
    if tat < now then tat = now end
  else
    redis.call('SET', KEYS[i], tat, 'PX', math.ceil(tat - now) + 1)
  end
  local remaining = math.floor((now + window - tat) / interval)
  if remaining < 0 then remaining = 0 end
  table.insert(result, remaining)
  table.insert(result, math.ceil((tat - now) / 1000))
end
return result
`);

export interface RatePolicy {
  /** Shown in the RateLimit headers, e.g. `workspace` or `token`. */
  readonly name: string;
  readonly key: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** Seconds until the request would be allowed (0 when allowed). */
  readonly retryAfterSeconds: number;
  readonly policies: readonly (RatePolicy & { remaining: number; resetSeconds: number })[];
}

export class RateLimiter {
  /** Decisions made without Redis (fail open): a number an operator watches. */
  failOpenCount = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Null when Redis is unreachable: the caller lets the request through (fail open). */
  async check(policies: readonly RatePolicy[]): Promise<RateDecision | null> {
    let raw: unknown;
    try {
      raw = await GCRA.run(
        this.redis,
        policies.map((p) => `${this.prefix}:rate:${p.key}`),
        policies.flatMap((p) => [p.limit, p.windowSeconds * 1000]),
      );
    } catch {
      this.failOpenCount++;
      return null;
    }
    const values = (raw as (number | string)[]).map(Number);
    return {
      allowed: values[0] === 1,
      retryAfterSeconds: Math.ceil((values[1] ?? 0) / 1000),
      policies: policies.map((p, i) => ({ ...p, remaining: values[2 + 2 * i] ?? 0, resetSeconds: values[3 + 2 * i] ?? 0 })),
    };
  }
}

/** The IETF RateLimit-Policy and RateLimit header fields (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(decision: RateDecision): { 'RateLimit-Policy': string; RateLimit: string } {
  return {
    'RateLimit-Policy': decision.policies.map((p) => `"${p.name}";q=${p.limit};w=${p.windowSeconds}`).join(', '),
    RateLimit: decision.policies.map((p) => `"${p.name}";r=${p.remaining};t=${p.resetSeconds}`).join(', '),
  };
}
