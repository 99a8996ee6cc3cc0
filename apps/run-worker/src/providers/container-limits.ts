import type { ProviderOffer, Resources } from '@wrs/domain';
import { pullSettingsOf, type PullSettings } from './container/image-pull';
import { ProviderError } from './provider';
import { cpuNanos, memoryBytes } from './quantities';

/**
 * What bounds every container of a provider (its offer in PROVIDERS_JSON): without them one run could
 * take all of the engine host's memory, CPU or processes, and the host's other services with them.
 */
export interface ContainerLimits {
  /** A run that gives no memory gets this limit. */
  readonly defaultMemory: string;
  /** A run that gives no CPU gets this limit. */
  readonly defaultCpu: string;
  /** A run asking more memory is refused; none: no maximum. */
  readonly maxMemory?: string;
  /** A run asking more CPU is refused; none: no maximum. */
  readonly maxCpu?: string;
  readonly pidsLimit: number;
}

export const DEFAULT_CONTAINER_LIMITS: ContainerLimits = {
  // As much as a JVM, a Node build or a test suite usually takes, and a small share of a shared host.
  defaultMemory: '1Gi',
  // One core, as the kubernetes provider's limit: a busy loop cannot starve the host's other services.
  defaultCpu: '1',
  // Threads count too: room for a JVM or a parallel build, while a fork bomb stops far below the host's pid_max.
  pidsLimit: 4096,
};

/** The provider's settings from its offer: image pulls and container limits. */
export interface ContainerSettings extends PullSettings {
  /** None: DEFAULT_CONTAINER_LIMITS. */
  readonly limits?: ContainerLimits;
}

export function containerSettingsOf(offer: ProviderOffer): ContainerSettings {
  return { ...pullSettingsOf(offer), limits: containerLimitsOf(offer) };
}

/**
 * The most memory a run may ask for when the offer sets no `maxMemory`: three quarters of the engine
 * host's memory, so one run cannot take what the host's other services need, whatever it asks.
 */
export function hostMaximumMemory(hostMemoryBytes: number): string {
  return `${Math.max(1, Math.floor((hostMemoryBytes * 3) / 4 / 2 ** 20))}Mi`;
}

/** The limits with `maxMemory` as the most a run may ask, and a default memory no larger than it. */
export function withMaximumMemory(limits: ContainerLimits, maxMemory: string): ContainerLimits {
  return { ...limits, maxMemory, defaultMemory: smaller(limits.defaultMemory, maxMemory, memoryBytes) };
}

/** The offer's limits (checked by libs/config), defaults for what it leaves out. */
export function containerLimitsOf(offer: ProviderOffer): ContainerLimits {
  const { defaultMemory, defaultCpu, maxMemory, maxCpu, pidsLimit } = offer;
  return {
    // A maximum below the built-in default lowers it: a run that gives nothing must not be refused.
    defaultMemory: defaultMemory ?? smaller(DEFAULT_CONTAINER_LIMITS.defaultMemory, maxMemory, memoryBytes),
    defaultCpu: defaultCpu ?? smaller(DEFAULT_CONTAINER_LIMITS.defaultCpu, maxCpu, cpuNanos),
    ...(maxMemory !== undefined ? { maxMemory } : {}),
    ...(maxCpu !== undefined ? { maxCpu } : {}),
    pidsLimit: pidsLimit ?? DEFAULT_CONTAINER_LIMITS.pidsLimit,
  };
}

function smaller(quantity: string, maximum: string | undefined, amount: (q: string) => number): string {
  return maximum !== undefined && amount(maximum) < amount(quantity) ? maximum : quantity;
}

/** The engine's HostConfig limits for a run: its own resources, else the defaults; always a pids limit. */
export function hostLimits(
  resources: Resources | undefined,
  limits: ContainerLimits,
): { Memory: number; NanoCpus: number; PidsLimit: number } {
  return {
    Memory: memoryBytes(resources?.memory ?? limits.defaultMemory),
    NanoCpus: cpuNanos(resources?.cpu ?? limits.defaultCpu),
    PidsLimit: limits.pidsLimit,
  };
}

/**
 * Refuses a run that asks more than the provider's maximum: giving it less than it asked for would
 * fail it later in a way nobody could explain. A refusal moves the run to its next candidate.
 */
export function refuseAboveMaximum(resources: Resources | undefined, limits: ContainerLimits): void {
  const { memory, cpu } = resources ?? {};
  if (memory !== undefined && limits.maxMemory !== undefined && memoryBytes(memory) > memoryBytes(limits.maxMemory)) {
    throw new ProviderError(
      'provider_error',
      `the workload asks for ${memory} of memory; this provider allows at most ${limits.maxMemory}`,
    );
  }
  if (cpu !== undefined && limits.maxCpu !== undefined && cpuNanos(cpu) > cpuNanos(limits.maxCpu)) {
    throw new ProviderError('provider_error', `the workload asks for ${cpu} CPU; this provider allows at most ${limits.maxCpu}`);
  }
}
