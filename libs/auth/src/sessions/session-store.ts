import { randomBytes } from 'node:crypto';
import { sessionHashOf } from './session-hash';
import type { Redis } from 'ioredis';

export interface Session {
  readonly workspaceId: string;
  readonly subject: string;
  /** The access token the session was made from: revoking it ends the session too. */
  readonly tokenId: string;
  readonly csrfToken: string;
  readonly expiresAt: number;
}

export class SessionStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`session store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'DependencyError';
  }
}

/**
 * Browser sessions in Redis, stored under the SHA-256 of the cookie's random id so a Redis copy holds no
 * usable id. A Redis failure is a 503, never a session that silently passes.
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async create(input: Omit<Session, 'csrfToken'>, now = Date.now()): Promise<{ id: string; session: Session }> {
    const id = randomBytes(32).toString('base64url');
    const session: Session = { ...input, csrfToken: randomBytes(32).toString('base64url') };
    const ttlMs = Math.max(1, input.expiresAt * 1000 - now);
    await this.guard(() => this.redis.set(this.key(id), JSON.stringify(session), 'PX', ttlMs));
    return { id, session };
  }

  async get(id: string): Promise<Session | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) {
      return null;
    }
    const raw = await this.guard(() => this.redis.get(this.key(id)));
    return raw ? (JSON.parse(raw) as Session) : null;
  }

  async delete(id: string): Promise<void> {
    await this.guard(() => this.redis.del(this.key(id)));
  }

  private key(id: string): string {
    return `${this.prefix}:session:${sessionHashOf(id)}`;
  }

  private async guard<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw new SessionStoreUnavailableError(error);
    }
  }
}
