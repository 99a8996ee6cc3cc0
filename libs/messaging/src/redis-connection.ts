import { Redis } from 'ioredis';

/**
 * A Redis client that fails fast instead of queueing: callers decide what a Redis outage means (a
 * fast path skipped, or a 503), and nothing waits on a dead server. It reconnects by itself.
 */
export async function connectRedis(url: string, onUnavailableAtStart: (error: unknown) => void): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // Commands issued in one turn of the event loop (the rate limit and idempotency checks of the
    // requests in flight) go out in one write: socket writes were the api's largest cost under load.
    enableAutoPipelining: true,
  });
  redis.on('error', () => undefined);
  await redis.connect().catch(onUnavailableAtStart);
  return redis;
}
