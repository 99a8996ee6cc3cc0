import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LuaScript } from '@wrs/messaging';

/**
 * Open streams per workspace, counted across replicas: each stream renews a lease in a sorted set scored
 * by expiry, so a dead replica's leases just expire. Taking a lease is one atomic Lua step.
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
  release(): Promise<void>;
}

const NO_LEASE: StreamLease = { release: () => Promise.resolve() };

export class StreamLeases {
  failures = 0;
  /** The leases this relay holds, by workspace key: one timer renews them all, one command per workspace. */
  private readonly held = new Map<string, Set<string>>();
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly leaseMs: number,
    /** Well within the lease's length. */
    private readonly renewEveryMs: number,
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
      return { granted: true, lease: NO_LEASE };
    }
    if (granted !== 1) {
      return { granted: false };
    }
    this.hold(key, id);
    return { granted: true, lease: { release: () => this.release(key, id) } };
  }

  /** Renews every lease this relay holds (the timer does, while it holds any). */
  async renewAll(): Promise<void> {
    const expiry = Date.now() + this.leaseMs;
    await Promise.all(
      [...this.held].map(async ([key, ids]) => {
        const members = [...ids].flatMap((id) => [expiry, id]);
        await Promise.all([this.redis.zadd(key, ...members), this.redis.pexpire(key, this.leaseMs * 2)]).catch(() => 0);
      }),
    );
  }

  private hold(key: string, id: string): void {
    const ids = this.held.get(key) ?? new Set<string>();
    ids.add(id);
    this.held.set(key, ids);
    this.renewal ??= setInterval(() => void this.renewAll(), this.renewEveryMs);
  }

  private async release(key: string, id: string): Promise<void> {
    const ids = this.held.get(key);
    if (!ids?.delete(id)) {
      return;
    }
    if (ids.size === 0) {
      this.held.delete(key);
    }
    if (this.held.size === 0) {
      clearInterval(this.renewal);
      this.renewal = undefined;
    }
    await this.redis.zrem(key, id).catch(() => 0);
  }
}
