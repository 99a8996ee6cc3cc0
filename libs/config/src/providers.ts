import { PULL_POLICIES, type ProviderOffer } from '@wrs/domain';
import { ConfigError } from './load-config';

/** Offered when PROVIDERS_JSON is not set: the simulator alone, in two regions. */
export const DEFAULT_PROVIDER_OFFERS: readonly ProviderOffer[] = [{ provider: 'simulator', regions: ['local-1', 'local-2'], priority: 0 }];

const NAME = /^[a-z][a-z0-9-]{0,62}$/;
const MAX_PULL_TIMEOUT_SECONDS = 3600;

/** What can run workloads; a provider's kind defaults to its name. */
export const PROVIDER_KINDS = ['simulator', 'container', 'kubernetes'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export function kindOf(offer: ProviderOffer): ProviderKind {
  return (offer.kind ?? offer.provider) as ProviderKind;
}

export function parseProviderOffers(json: string | undefined): readonly ProviderOffer[] {
  if (json === undefined || json.trim() === '') {
    return DEFAULT_PROVIDER_OFFERS;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ConfigError(['PROVIDERS_JSON: is not valid JSON']);
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every(isOffer)) {
    throw new ConfigError([
      `PROVIDERS_JSON: must be a non-empty array of {"provider": name, "kind"?: ${PROVIDER_KINDS.map((k) => `"${k}"`).join('|')}, "regions": [name, ...], "priority": integer, "cost"?: number >= 0, "capacity"?: integer >= 0, "auto"?: boolean, ` +
        `"pullPolicy"?: ${PULL_POLICIES.map((p) => `"${p}"`).join('|')}, "pullTimeoutSeconds"?: integer 1-${MAX_PULL_TIMEOUT_SECONDS} (both for kind "container" only)}`,
    ]);
  }
  return parsed;
}

function isOffer(value: unknown): value is ProviderOffer {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const v = value as Record<string, unknown>;
  return (
    typeof v['provider'] === 'string' &&
    NAME.test(v['provider']) &&
    v['provider'] !== 'auto' &&
    Array.isArray(v['regions']) &&
    v['regions'].length > 0 &&
    v['regions'].every((r) => typeof r === 'string' && NAME.test(r) && r !== 'auto') &&
    Number.isInteger(v['priority']) &&
    (PROVIDER_KINDS as readonly unknown[]).includes(v['kind'] ?? v['provider']) &&
    (v['cost'] === undefined || (typeof v['cost'] === 'number' && Number.isFinite(v['cost']) && v['cost'] >= 0)) &&
    (v['capacity'] === undefined || (Number.isInteger(v['capacity']) && (v['capacity'] as number) >= 0)) &&
    (v['auto'] === undefined || typeof v['auto'] === 'boolean') &&
    pullSettingsValid(v)
  );
}

/** Pull settings only mean something to a container engine: elsewhere they would be silently ignored. */
function pullSettingsValid(v: Record<string, unknown>): boolean {
  const { pullPolicy, pullTimeoutSeconds } = v;
  if (pullPolicy === undefined && pullTimeoutSeconds === undefined) {
    return true;
  }
  return (
    (v['kind'] ?? v['provider']) === 'container' &&
    (pullPolicy === undefined || (PULL_POLICIES as readonly unknown[]).includes(pullPolicy)) &&
    (pullTimeoutSeconds === undefined ||
      (Number.isInteger(pullTimeoutSeconds) &&
        (pullTimeoutSeconds as number) >= 1 &&
        (pullTimeoutSeconds as number) <= MAX_PULL_TIMEOUT_SECONDS))
  );
}
