import type { Placement } from '../run/run.events';

/** What the operator configured: providers, their regions, and the order `auto` tries them in. */
export interface ProviderOffer {
  readonly provider: string;
  /** What runs the workloads: `simulator` or `container` (default: the provider's name). */
  readonly kind?: string;
  readonly regions: readonly string[];
  /** Lower is preferred. */
  readonly priority: number;
  /** Runs at once per region; none means as many as the provider takes. */
  readonly capacity?: number;
}

export const AUTO = 'auto';

export type PlacementCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly field: 'provider' | 'region'; readonly allowed: readonly string[] };

/** Checked at the API so that an unknown provider or region is a 4xx, never a run that fails later. */
export function checkRequestedPlacement(
  offers: readonly ProviderOffer[],
  provider: string,
  region: string,
): PlacementCheck {
  const providers = offers.map((o) => o.provider);
  if (provider !== AUTO && !providers.includes(provider)) {
    return { ok: false, field: 'provider', allowed: [AUTO, ...providers] };
  }
  const regions = regionsOf(offers, provider);
  if (region !== AUTO && !regions.includes(region)) {
    return { ok: false, field: 'region', allowed: [AUTO, ...regions] };
  }
  return { ok: true };
}

/**
 * The `auto` policy: candidates in provider priority order (ties by name), each provider's regions in
 * the order configured. The first candidate is chosen; the rest are the failover order.
 */
export function placementCandidates(
  offers: readonly ProviderOffer[],
  provider: string,
  region: string,
): { provider: string; region: string }[] {
  return [...offers]
    .filter((o) => provider === AUTO || o.provider === provider)
    .sort((a, b) => a.priority - b.priority || a.provider.localeCompare(b.provider))
    .flatMap((o) =>
      o.regions.filter((r) => region === AUTO || r === region).map((r) => ({ provider: o.provider, region: r })),
    );
}

export function choosePlacement(
  offers: readonly ProviderOffer[],
  provider: string,
  region: string,
): Placement | null {
  const candidates = placementCandidates(offers, provider, region);
  const chosen = candidates[0];
  if (!chosen) {
    return null;
  }
  const reason =
    provider === AUTO || region === AUTO
      ? `auto: first of ${candidates.length} candidate(s) by provider priority, then configured region order`
      : 'as requested';
  return { provider: chosen.provider, region: chosen.region, reason, candidates };
}

function regionsOf(offers: readonly ProviderOffer[], provider: string): string[] {
  const matching = offers.filter((o) => provider === AUTO || o.provider === provider);
  return [...new Set(matching.flatMap((o) => o.regions))];
}
