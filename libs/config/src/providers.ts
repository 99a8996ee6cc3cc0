import { PULL_POLICIES, type ProviderOffer } from '@wrs/domain';
import { ConfigError } from './load-config';

/** Offered when PROVIDERS_JSON is not set: the simulator alone, in two regions. */
export const DEFAULT_PROVIDER_OFFERS: readonly ProviderOffer[] = [{ provider: 'simulator', regions: ['local-1', 'local-2'], priority: 0 }];

const NAME = /^[a-z][a-z0-9-]{0,62}$/;
const MAX_PULL_TIMEOUT_SECONDS = 3600;
/** The forms a run's own `resources` take (the contract's Resources), so an offer's bounds read alike. */
const MEMORY_QUANTITY = /^[1-9][0-9]{0,5}(Ki|Mi|Gi)$/;
const CPU_QUANTITY = /^([1-9][0-9]{0,5}m|[1-9][0-9]{0,2})$/;
/** Linux's highest pid (PID_MAX_LIMIT): a larger pids limit would mean nothing. */
const MAX_PIDS_LIMIT = 4_194_304;
const CONTAINER_LIMITS = ['defaultMemory', 'defaultCpu', 'maxMemory', 'maxCpu', 'pidsLimit'] as const;

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
        `"pullPolicy"?: ${PULL_POLICIES.map((p) => `"${p}"`).join('|')}, "pullTimeoutSeconds"?: integer 1-${MAX_PULL_TIMEOUT_SECONDS} (both for kind "container" only), ` +
        `${CONTAINER_LIMITS.map((k) => `"${k}"?`).join(', ')} (kind "container" only)}`,
    ]);
  }
  const problems = parsed.flatMap(containerLimitProblems);
  if (problems.length > 0) {
    throw new ConfigError(problems);
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

/**
 * What is wrong with an offer's container limits, each problem naming the provider and the setting: the
 * limits bound what a run may take of the engine's host, so a mistake must stop the service, not pass.
 */
function containerLimitProblems(offer: ProviderOffer): string[] {
  const v = offer as unknown as Record<string, unknown>;
  const given = CONTAINER_LIMITS.filter((k) => v[k] !== undefined);
  if (given.length > 0 && kindOf(offer) !== 'container') {
    return [`PROVIDERS_JSON: provider "${offer.provider}": ${given.map((k) => `"${k}"`).join(', ')} apply to kind "container" only`];
  }
  const malformed = [
    quantityProblem(v, 'defaultMemory', MEMORY_QUANTITY, MEMORY_FORM),
    quantityProblem(v, 'maxMemory', MEMORY_QUANTITY, MEMORY_FORM),
    quantityProblem(v, 'defaultCpu', CPU_QUANTITY, CPU_FORM),
    quantityProblem(v, 'maxCpu', CPU_QUANTITY, CPU_FORM),
    pidsLimitProblem(v['pidsLimit']),
  ].filter((p): p is string => p !== null);
  // Compared only once both are well formed.
  const problems = malformed.length > 0 ? malformed : orderProblems(offer);
  return problems.map((p) => `PROVIDERS_JSON: provider "${offer.provider}": ${p}`);
}

const MEMORY_FORM = 'a memory quantity in Ki, Mi or Gi, e.g. "1Gi"';
const CPU_FORM = 'millicores ("500m") or whole cores ("2")';

function quantityProblem(v: Record<string, unknown>, key: string, form: RegExp, described: string): string | null {
  const value = v[key];
  if (value === undefined || (typeof value === 'string' && form.test(value))) {
    return null;
  }
  return `"${key}" must be ${described}, not ${JSON.stringify(value)}`;
}

function pidsLimitProblem(value: unknown): string | null {
  if (value === undefined || (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_PIDS_LIMIT)) {
    return null;
  }
  return `"pidsLimit" must be an integer from 1 to ${MAX_PIDS_LIMIT}, not ${JSON.stringify(value)}`;
}

/** A default above its maximum would have every run that gives none refused. */
function orderProblems(offer: ProviderOffer): string[] {
  const { defaultMemory, maxMemory, defaultCpu, maxCpu } = offer;
  return [
    ...(defaultMemory && maxMemory && memoryKi(defaultMemory) > memoryKi(maxMemory)
      ? [`"defaultMemory" ${defaultMemory} is above "maxMemory" ${maxMemory}`]
      : []),
    ...(defaultCpu && maxCpu && milliCpu(defaultCpu) > milliCpu(maxCpu) ? [`"defaultCpu" ${defaultCpu} is above "maxCpu" ${maxCpu}`] : []),
  ];
}

const KI_PER_UNIT: Readonly<Record<string, number>> = { Ki: 1, Mi: 1024, Gi: 1024 ** 2 };

function memoryKi(quantity: string): number {
  return Number(quantity.slice(0, -2)) * (KI_PER_UNIT[quantity.slice(-2)] ?? Number.NaN);
}

function milliCpu(quantity: string): number {
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000;
}
