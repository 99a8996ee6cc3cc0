import type { RunProvider } from './provider';

export type HealthVerdict = { readonly healthy: true } | { readonly healthy: false; readonly reason: string };

export interface ProviderHealthOptions {
  /** How often providers with a global endpoint (`probe()`) are probed. */
  readonly probeIntervalMs: number;
  /** Calls in a row that must fail before a (provider, workspace) pair counts as unhealthy. */
  readonly failuresBeforeUnhealthy: number;
  /** How long an unhealthy pair is skipped before `auto` tries it again. */
  readonly cooldownMs: number;
}

interface CallRecord {
  failuresInARow: number;
  lastFailureAt: number;
  lastError: string;
}

/**
 * Each provider's health for `auto`: from a probe where there is one endpoint (the engine's /_ping), else
 * from the worker's own calls per (provider, workspace), since each workspace may reach another cluster.
 * After `failuresBeforeUnhealthy` failures in a row a pair is skipped for `cooldownMs`. Kept in memory only.
 */
export class ProviderHealth {
  private readonly probed = new Map<string, HealthVerdict>();
  private readonly calls = new Map<string, CallRecord>();
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;

  constructor(
    private readonly providers: readonly RunProvider[],
    private readonly options: ProviderHealthOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Probes at once and then every interval. Not awaited: a slow engine must not hold up the worker's
   * start (its probe may take the engine client's whole time-out); until it answers, providers count
   * as healthy.
   */
  start(): void {
    const probe = () => {
      this.probing ??= this.probeAll().finally(() => (this.probing = undefined));
    };
    probe();
    this.timer = setInterval(probe, this.options.probeIntervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.probing;
  }

  async probeAll(): Promise<void> {
    await Promise.all(
      this.providers.map(async (provider) => {
        if (!provider.probe) {
          return;
        }
        try {
          await provider.probe();
          this.probed.set(provider.name, { healthy: true });
        } catch (error) {
          this.probed.set(provider.name, { healthy: false, reason: `its health probe failed: ${messageOf(error)}` });
        }
      }),
    );
  }

  verdict(provider: string, workspaceId: string): HealthVerdict {
    const probed = this.probed.get(provider);
    if (probed && !probed.healthy) {
      return probed;
    }
    const record = this.calls.get(pairKey(provider, workspaceId));
    if (record && record.failuresInARow >= this.options.failuresBeforeUnhealthy) {
      const ago = this.clock() - record.lastFailureAt;
      if (ago < this.options.cooldownMs) {
        return {
          healthy: false,
          reason: `its last ${record.failuresInARow} calls for this workspace failed, the last ${Math.round(ago / 1000)} s ago (${record.lastError})`,
        };
      }
    }
    return { healthy: true };
  }

  recordSuccess(provider: string, workspaceId: string): void {
    this.calls.delete(pairKey(provider, workspaceId));
  }

  recordFailure(provider: string, workspaceId: string, error: unknown): void {
    const key = pairKey(provider, workspaceId);
    const record = this.calls.get(key);
    this.calls.set(key, {
      failuresInARow: (record?.failuresInARow ?? 0) + 1,
      lastFailureAt: this.clock(),
      lastError: messageOf(error).slice(0, 300),
    });
  }
}

function pairKey(provider: string, workspaceId: string): string {
  return JSON.stringify([provider, workspaceId]);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
