import type { Workspaces } from '@wrs/persistence';

/** What a workspace may use. Defaults come from configuration; a workspace's record may override any. */
export interface WorkspaceLimits {
  /** Requests per minute for the whole workspace, over every replica. */
  readonly requestsPerMinute: number;
  /** Requests per minute for one token (or session). */
  readonly tokenRequestsPerMinute: number;
  /** Runs not yet finished at once. */
  readonly maxActiveRuns: number;
  /** Event streams open at once. */
  readonly maxEventStreams: number;
}

const KEYS: readonly (keyof WorkspaceLimits)[] = ['requestsPerMinute', 'tokenRequestsPerMinute', 'maxActiveRuns', 'maxEventStreams'];

/**
 * The limits in force for a workspace, cached briefly so a request costs no extra query. When the
 * cached limits expire, the requests that ask while they are read again share that one read: each
 * asking on its own made a query per request in flight (under load, tens per expiry and process).
 */
export class EffectiveLimits {
  private readonly cache = new Map<string, { limits: WorkspaceLimits; until: number }>();
  private readonly reading = new Map<string, Promise<WorkspaceLimits>>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly defaults: WorkspaceLimits,
    private readonly ttlMs = 10_000,
  ) {}

  async for(workspaceId: string): Promise<WorkspaceLimits> {
    const hit = this.cache.get(workspaceId);
    if (hit && hit.until > Date.now()) {
      return hit.limits;
    }
    let read = this.reading.get(workspaceId);
    if (!read) {
      read = this.read(workspaceId).finally(() => this.reading.delete(workspaceId));
      this.reading.set(workspaceId, read);
    }
    return read;
  }

  private async read(workspaceId: string): Promise<WorkspaceLimits> {
    const overrides = (await this.workspaces.limitsOf(workspaceId)) ?? {};
    const limits = { ...this.defaults };
    for (const key of KEYS) {
      const value = overrides[key];
      if (typeof value === 'number' && Number.isInteger(value) && value > 0) {
        (limits as Record<string, number>)[key] = value;
      }
    }
    this.cache.set(workspaceId, { limits, until: Date.now() + this.ttlMs });
    return limits;
  }
}
