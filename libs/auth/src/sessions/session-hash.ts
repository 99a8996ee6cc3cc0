import { createHash } from 'node:crypto';

/** A session's id as the service keeps and names it (Redis key, revocation stream): hashed, so neither holds a usable session id. */
export function sessionHashOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}
