import { LuaScript } from './lua-script';
import type { RatePolicy } from './rate-limiter';

/**
 * The GCRA's cells, several at once (a lease, see RateLeases). ARGV: the cells wanted (0: only give
 * back), the share (a take gets at most 1/share of the cells the tightest policy has free, at least
 * one), the cells to give back, then per policy its limit, window (ms) and the lease's end (the
 * policy's TAT after the take the cells came from). One cell is taken exactly when the single-cell
 * GCRA would allow one. Answers: cells taken, ms until one is free (refused), Redis's time, the fewest
 * free after the take, then per policy: remaining, seconds to reset, its TAT after the take.
 */
const GCRA_TAKE = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local want = tonumber(ARGV[1])
local share = tonumber(ARGV[2])
local back = tonumber(ARGV[3])
local n = #KEYS
local tats, intervals, windows, changed = {}, {}, {}, false
local wait = 0
local least = nil
for i = 1, n do
  local limit = tonumber(ARGV[1 + 3 * i])
  local window = tonumber(ARGV[2 + 3 * i])
  local lease_end = tonumber(ARGV[3 + 3 * i])
  local interval = window / limit
  local tat = tonumber(redis.call('GET', KEYS[i]) or now)
  -- Only the part of a lease still ahead of now goes back: cells behind it have refilled already,
  -- and giving them back would make cells the window never had.
  local returned = math.min(back, math.max(0, math.floor((lease_end - now) / interval)))
  if returned > 0 then
    tat = tat - returned * interval
    changed = true
  end
  if tat < now then tat = now end
  local allow_at = tat + interval - window
  if allow_at - now > wait then wait = allow_at - now end
  local free = math.floor((now + window - tat) / interval)
  if least == nil or free < least then least = free end
  tats[i], intervals[i], windows[i] = tat, interval, window
end
local take = 0
if want > 0 and wait <= 0 then
  take = math.min(want, math.max(1, math.floor(least / share)))
  changed = true
end
if want == 0 or take > 0 then wait = 0 end
local result = {take, math.ceil(wait), now, math.max(0, least - take)}
for i = 1, n do
  local tat = tats[i] + take * intervals[i]
  if changed then
    redis.call('SET', KEYS[i], tat, 'PX', math.ceil(tat - now) + 1)
  end
  local remaining = math.floor((now + windows[i] - tat) / intervals[i])
  if remaining < 0 then remaining = 0 end
  table.insert(result, remaining)
  table.insert(result, math.ceil((tat - now) / 1000))
  table.insert(result, math.floor(tat))
end
return result`);

/** One policy after a take. */
export interface TakenPolicy {
  readonly remaining: number;
  readonly resetSeconds: number;
  /** The policy's TAT after the take, in Redis's milliseconds: what a give-back of these cells is bounded by. */
  readonly end: number;
}

/** What a take of several cells got. */
export interface RateTake {
  /** 0: refused (or only given back). */
  readonly cells: number;
  /** Milliseconds until one cell is free, when refused. */
  readonly waitMs: number;
  /** Redis's clock at the take, milliseconds. */
  readonly redisNow: number;
  /** The fewest cells any policy has free after the take. */
  readonly leastFree: number;
  readonly policies: readonly TakenPolicy[];
}

export interface TakeRequest {
  readonly cells: number;
  readonly share: number;
  readonly giveBack: number;
  /** Per policy, the end of the lease whose cells go back (empty: none go back). */
  readonly ends: readonly number[];
}

export function gcraTakeArgs(policies: readonly RatePolicy[], request: TakeRequest): number[] {
  return [
    request.cells,
    request.share,
    request.giveBack,
    ...policies.flatMap((p, i) => [p.limit, p.windowSeconds * 1000, request.ends[i] ?? 0]),
  ];
}

export function parseGcraTake(raw: unknown, policyCount: number): RateTake {
  const values = (raw as (number | string)[]).map(Number);
  const policies: TakenPolicy[] = [];
  for (let i = 0; i < policyCount; i++) {
    const at = 4 + 3 * i;
    policies.push({ remaining: values[at] ?? 0, resetSeconds: values[at + 1] ?? 0, end: values[at + 2] ?? 0 });
  }
  return { cells: values[0] ?? 0, waitMs: values[1] ?? 0, redisNow: values[2] ?? 0, leastFree: values[3] ?? 0, policies };
}

export { GCRA_TAKE };
