import type { Placement, PlacementCandidate } from '../run/run.events';

/** What the operator configured: providers, their regions, and the order `auto` tries them in. */
export interface ProviderOffer {
  readonly provider: string;
  /** What runs the workloads: `simulator`, `container` or `kubernetes` (default: the provider's name). */
  readonly kind?: string;
  readonly regions: readonly string[];
  /** Lower is preferred. */
  readonly priority: number;
  /** Relative cost of a run there (any unit, the same for every offer); between equal priorities, lower is preferred. Default 0. */
  readonly cost?: number;
  /** Runs at once per region; none means as many as the provider takes. */
  readonly capacity?: number;
  /**
   * False: never chosen by `auto`, only when asked for by name. For a simulator beside real
   * providers: `auto` must not report a run that never ran as succeeded. Default true.
   */
  readonly auto?: boolean;
  /** Kind `container`: when the engine pulls the run's image (default `IfNotPresent`). */
  readonly pullPolicy?: PullPolicy;
  /** Kind `container`: how long a pull may take before the run fails `image_pull_timed_out` (default 300). */
  readonly pullTimeoutSeconds?: number;
  /** Kind `container`: the memory limit of a run that gives none, a quantity as in a run's resources (default `1Gi`). */
  readonly defaultMemory?: string;
  /** Kind `container`: the CPU limit of a run that gives none, millicores or cores (default `1`). */
  readonly defaultCpu?: string;
  /** Kind `container`: the most memory a run may ask for; a run asking more is refused (default: no maximum). */
  readonly maxMemory?: string;
  /** Kind `container`: the most CPU a run may ask for; a run asking more is refused (default: no maximum). */
  readonly maxCpu?: string;
  /** Kind `container`: how many processes and threads a container may hold at once (default 4096). */
  readonly pidsLimit?: number;
}

/** As in Kubernetes: pull only a missing image, pull every time (a moving tag), or never pull. */
export const PULL_POLICIES = ['IfNotPresent', 'Always', 'Never'] as const;
export type PullPolicy = (typeof PULL_POLICIES)[number];

export const AUTO = 'auto';

export type PlacementCheck =
  { readonly ok: true } | { readonly ok: false; readonly field: 'provider' | 'region'; readonly allowed: readonly string[] };

/**
 * Checked at the API so that an unknown provider or region is a 4xx, never a run that fails later. With
 * `auto`, only the offers `auto` may choose count: a region only an `auto: false` offer has would be
 * accepted and then fail for want of a candidate.
 */
export function checkRequestedPlacement(offers: readonly ProviderOffer[], provider: string, region: string): PlacementCheck {
  const providers = offers.map((o) => o.provider);
  const autoOffers = offers.filter(autoMayChoose);
  const providerChoices = autoOffers.length > 0 ? [AUTO, ...providers] : providers;
  if (provider === AUTO ? autoOffers.length === 0 : !providers.includes(provider)) {
    return { ok: false, field: 'provider', allowed: providerChoices };
  }
  const regions = regionsOf(provider === AUTO ? autoOffers : offers, provider);
  if (region !== AUTO && !regions.includes(region)) {
    return { ok: false, field: 'region', allowed: [AUTO, ...regions] };
  }
  return { ok: true };
}

/** Whether `auto` may place a run on the offer (unless it says `auto: false`). */
export function autoMayChoose(offer: ProviderOffer): boolean {
  return offer.auto !== false;
}

/**
 * The `auto` policy: candidates by provider priority, then cost, then load (unfinished runs placed
 * there, when `loadOf` is given), then configured order (provider name, then the provider's region
 * order). The first candidate is chosen; the rest are the failover order.
 */
export function placementCandidates(
  offers: readonly ProviderOffer[],
  provider: string,
  region: string,
  loadOf?: (provider: string, region: string) => number,
): PlacementCandidate[] {
  const ranked = offers
    .filter((o) => (provider === AUTO ? autoMayChoose(o) : o.provider === provider))
    .flatMap((o) =>
      o.regions
        .filter((r) => region === AUTO || r === region)
        .map((r, order) => ({ offer: o, order, candidate: candidateOf(o, r, loadOf) })),
    );
  ranked.sort(
    (a, b) =>
      a.offer.priority - b.offer.priority ||
      (a.offer.cost ?? 0) - (b.offer.cost ?? 0) ||
      (a.candidate.load ?? 0) - (b.candidate.load ?? 0) ||
      a.offer.provider.localeCompare(b.offer.provider) ||
      a.order - b.order,
  );
  return ranked.map((r) => r.candidate);
}

function candidateOf(
  offer: ProviderOffer,
  region: string,
  loadOf: ((provider: string, region: string) => number) | undefined,
): PlacementCandidate {
  return {
    provider: offer.provider,
    region,
    ...(offer.cost !== undefined ? { cost: offer.cost } : {}),
    ...(loadOf ? { load: loadOf(offer.provider, region) } : {}),
  };
}

/** The policy in words, for a placement's `reason`. */
export const AUTO_POLICY = 'provider priority, then cost, then load, then configured order';

export function choosePlacement(offers: readonly ProviderOffer[], provider: string, region: string): Placement | null {
  const candidates = placementCandidates(offers, provider, region);
  const chosen = candidates[0];
  if (!chosen) {
    return null;
  }
  const reason =
    provider === AUTO || region === AUTO ? `auto: first of ${candidates.length} candidate(s) by ${AUTO_POLICY}` : 'as requested';
  return { provider: chosen.provider, region: chosen.region, reason, candidates };
}

function regionsOf(offers: readonly ProviderOffer[], provider: string): string[] {
  const matching = offers.filter((o) => provider === AUTO || o.provider === provider);
  return [...new Set(matching.flatMap((o) => o.regions))];
}
