import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run by its SHA1 (`EVALSHA`): the script's text goes to Redis once, not with every
 * call (the rate-limit script alone is 1.9 KB; writing it per request was the relay's largest cost
 * per event stream). A Redis that does not hold the script (restarted, flushed) answers NOSCRIPT, and
 * the call is made once with the text, which loads it again.
 */
export class LuaScript {
  readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return redis.eval(this.source, keys.length, ...keys, ...args);
      }
      throw error;
    }
  }
}
