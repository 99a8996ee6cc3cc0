import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LuaScript } from '@wrs/messaging';

/**
 * Open event streams per workspace, counted across every relay replica: each stream holds a lease
 * (a member of a sorted set scored by its expiry) that it renews while open. A replica that dies
 * leaves leases that simply expire. Taking a lease is one atomic Lua step.
 */
const ACQUIRE = new LuaScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`);

export type LeaseResult = { readonly granted: true; readonly lease: StreamLease } | { readonly granted: false };

export interface StreamLease {
  renew(): Promise<void>;
  release(): Promise<void>;
}

export class StreamLeases {
  failures = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly leaseMs: number,
  ) {}

  /**
   * Takes a lease unless the workspace already has `limit` open streams. When Redis is unreachable the
   * limit fails open (the stream is served, the failure counted): limits protect, they must not cut off.
   */
  async acquire(workspaceId: string, limit: number): Promise<LeaseResult> {
    const key = `${this.prefix}:streams:${workspaceId}`;
    const id = randomUUID();
    const now = Date.now();
    let granted: unknown;
    try {
      granted = await ACQUIRE.run(this.redis, [key], [now, now + this.leaseMs, limit, id, this.leaseMs * 2]);
    } catch {
      this.failures++;
      return { granted: true, lease: { renew: () => Promise.resolve(), release: () => Promise.resolve() } };
    }
    if (granted !== 1) {
      return { granted: false };
    }
    return {
      granted: true,
      lease: {
        renew: async () => {
          await this.redis.zadd(key, Date.now() + this.leaseMs, id).catch(() => 0);
        },
        release: async () => {
          await this.redis.zrem(key, id).catch(() => 0);
        },
      },
    };
  }
}
