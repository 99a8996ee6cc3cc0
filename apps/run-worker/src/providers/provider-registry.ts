import type { RunProvider } from './provider';
import { ProviderHealth, type ProviderHealthOptions } from './provider-health';

const DEFAULT_HEALTH: ProviderHealthOptions = { probeIntervalMs: 10_000, failuresBeforeUnhealthy: 3, cooldownMs: 30_000 };

/** The providers this worker can use, by name, with what is known of their health. */
export class ProviderRegistry {
  private readonly byName: ReadonlyMap<string, RunProvider>;
  readonly health: ProviderHealth;

  constructor(providers: readonly RunProvider[], health: Partial<ProviderHealthOptions> = {}) {
    this.byName = new Map(providers.map((p) => [p.name, p]));
    this.health = new ProviderHealth(providers, { ...DEFAULT_HEALTH, ...health });
  }

  get(name: string): RunProvider | undefined {
    return this.byName.get(name);
  }

  all(): RunProvider[] {
    return [...this.byName.values()];
  }
}
