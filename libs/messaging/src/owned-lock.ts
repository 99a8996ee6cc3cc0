import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LuaScript } from './lua-script';

/** A lock's key and the token its holder set it to: only that holder's release deletes it. */
export interface HeldLock {
  readonly key: string;
  readonly token: string;
}

/** A token for one holder of a lock (a request), so a holder whose lock lapsed cannot release the next holder's. */
export function newLockToken(): string {
  return randomUUID();
}

/** Deletes each KEYS[i] that still holds ARGV[i]; a lock that lapsed and was taken by another stays. */
const RELEASE_OWNED = new LuaScript(`
local released = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i] then released = released + redis.call('DEL', key) end
end
return released`);

/** Releases the locks this holder still holds (compare-and-delete); how many it released. */
export async function releaseOwnedLocks(redis: Redis, locks: readonly HeldLock[]): Promise<number> {
  if (locks.length === 0) {
    return 0;
  }
  return Number(
    await RELEASE_OWNED.run(
      redis,
      locks.map((l) => l.key),
      locks.map((l) => l.token),
    ),
  );
}
