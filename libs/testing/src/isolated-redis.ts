import { Redis } from 'ioredis';
import { isolatedEnvironment, type IsolatedEnvironment } from './isolation';

export interface IsolatedRedis {
  /** The spec's own environment (its namespace prefixes every key it writes). */
  readonly env: IsolatedEnvironment;
  readonly redis: Redis;
}

/**
 * For a spec that talks to Redis alone: an isolated environment and one client on it, made in beforeAll
 * and ended in afterAll. Read its fields inside tests, once beforeAll has run.
 */
export function isolatedRedis(): IsolatedRedis {
  const held: { env?: IsolatedEnvironment; redis?: Redis } = {};
  beforeAll(async () => {
    held.env = await isolatedEnvironment();
    held.redis = new Redis(held.env.redisUrl);
  });
  afterAll(async () => {
    held.redis?.disconnect();
    await held.env?.cleanup();
  });
  return {
    get env() {
      return required(held.env);
    },
    get redis() {
      return required(held.redis);
    },
  };
}

function required<T>(value: T | undefined): T {
  if (value === undefined) {
    throw new Error('isolatedRedis: read before its beforeAll ran');
  }
  return value;
}
