import { authOf } from '@wrs/auth';
import type { RateLimitRider } from '@wrs/limits';
import { newLockToken, rateLimitedScript, type HeldLock } from '@wrs/messaging';
import type { Request } from 'express';
import { BEGIN_FUNCTION, beginKeys, beginResultOf, IDEMPOTENCY_LOCK_MS, type BeginResult } from './idempotency-cache';
import { PRINTABLE_ASCII, sha256Hex } from './idempotency-key';

interface Ahead {
  readonly idempotencyKey: string;
  readonly lock: HeldLock;
  begun?: BeginResult;
  taken: boolean;
}

const ahead = new WeakMap<Request, Ahead>();

/**
 * Does a create's begin (finished claim, else lock and active-runs count) in the rate limit's Redis round
 * trip, saving one trip. A lock taken for a request whose body is then refused is released on answer.
 */
export const createBeginRider: RateLimitRider = {
  script: rateLimitedScript(`${BEGIN_FUNCTION}local function rider(keys, argv) return begin(keys, argv) end\n`),
  work(req, prefix) {
    const idempotencyKey = req.header('idempotency-key');
    if (idempotencyKey === undefined || !PRINTABLE_ASCII.test(idempotencyKey)) {
      return undefined;
    }
    const keys = beginKeys(prefix, authOf(req).workspaceId, sha256Hex(idempotencyKey));
    const lock = { key: keys[1], token: newLockToken() };
    ahead.set(req, { idempotencyKey, lock, taken: false });
    return { keys, args: [IDEMPOTENCY_LOCK_MS, lock.token] };
  },
  accept(req, reply) {
    const found = ahead.get(req);
    if (!found) {
      return [];
    }
    found.begun = beginResultOf(reply as [string, (string | null)?], found.lock.token);
    return 'lock' in found.begun && found.begun.lock === 'acquired' ? [found.lock] : [];
  },
  taken: (req) => ahead.get(req)?.taken ?? true,
};

/** The begin done ahead for this request and key, if any: the route takes it, and with it the lock. */
export function takeBegunAhead(req: Request, idempotencyKey: string): BeginResult | undefined {
  const found = ahead.get(req);
  if (!found?.begun || found.idempotencyKey !== idempotencyKey) {
    return undefined;
  }
  found.taken = true;
  return found.begun;
}
