import { SetMetadata } from '@nestjs/common';
import type { HeldLock, LuaScript } from '@wrs/messaging';
import type { Request } from 'express';

export const RATE_LIMIT_RIDER = Symbol('RATE_LIMIT_RIDER');

/**
 * Redis work a route has done in the rate limit's own round trip (one where there were two): a script
 * from `rateLimitedScript`, run only when the request is allowed, before the body is read.
 */
export interface RateLimitRider {
  readonly script: LuaScript;
  /** Keys (named with `prefix`) and arguments for this request; undefined: nothing to do ahead. */
  work(req: Request, prefix: string): { keys: string[]; args: (string | number)[] } | undefined;
  /** Hands the answer to the route; returns locks to release if the answer goes out before the route took it. */
  accept(req: Request, reply: unknown): readonly HeldLock[];
  /** Whether the route took the answer (and with it, whatever must be released). */
  taken(req: Request): boolean;
}

/** The route's RateLimitGuard check carries `rider`'s work. */
export const RideRateLimit = (rider: RateLimitRider): MethodDecorator => SetMetadata(RATE_LIMIT_RIDER, rider);
