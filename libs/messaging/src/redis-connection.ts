import { Redis } from 'ioredis';

/**
 * A Redis client that fails fast instead of queueing: callers decide what a Redis outage means (a
 * fast path skipped, or a 503), and nothing waits on a dead server. It reconnects by itself.
 */
export async function connectRedis(url: string, onUnavailableAtStart: (error: unknown) => void): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  await redis.connect().catch(onUnavailableAtStart);
  return redis;
}
