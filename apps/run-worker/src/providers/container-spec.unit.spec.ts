import type { ProviderOffer } from '@wrs/domain';
import {
  containerLimitsOf,
  containerSettingsOf,
  DEFAULT_CONTAINER_LIMITS,
  hostMaximumMemory,
  refuseAboveMaximum,
  withMaximumMemory,
} from './container-limits';
import { containerRunOf } from './container-runs.testing';
import { containerSpec } from './container-spec';
import { ProviderError } from './provider';

const GI = 1024 ** 3;
const MI = 1024 ** 2;
const offer = (limits: Partial<ProviderOffer>): ProviderOffer => ({ provider: 'container', regions: ['local'], priority: 0, ...limits });

describe('the container spec', () => {
  const hostConfigOf = (resources?: { cpu?: string; memory?: string }, limits = DEFAULT_CONTAINER_LIMITS) =>
    containerSpec(containerRunOf('busybox', 'tail /dev/zero', resources), 'wrs', null, limits).HostConfig;

  it('bounds a run that gives no resources by the defaults, with a pids limit and no new privileges', () => {
    expect(hostConfigOf()).toEqual({
      NetworkMode: 'none',
      SecurityOpt: ['no-new-privileges'],
      Memory: GI,
      NanoCpus: 1_000_000_000,
      PidsLimit: 4096,
    });
  });

  it("applies a run's own resources as given, each one it leaves out from the defaults", () => {
    expect(hostConfigOf({ cpu: '500m', memory: '256Mi' })).toMatchObject({ Memory: 256 * MI, NanoCpus: 500_000_000, PidsLimit: 4096 });
    expect(hostConfigOf({ cpu: '2' })).toMatchObject({ Memory: GI, NanoCpus: 2_000_000_000 });
    expect(hostConfigOf({ memory: '3Gi' })).toMatchObject({ Memory: 3 * GI, NanoCpus: 1_000_000_000 });
  });

  it("takes the offer's defaults and pids limit", () => {
    const limits = containerLimitsOf(offer({ defaultMemory: '512Mi', defaultCpu: '250m', pidsLimit: 100 }));
    expect(hostConfigOf(undefined, limits)).toMatchObject({ Memory: 512 * MI, NanoCpus: 250_000_000, PidsLimit: 100 });
  });
});

describe("an offer's container limits", () => {
  it('are the defaults when the offer gives none, and travel with its pull settings', () => {
    expect(containerLimitsOf(offer({}))).toEqual(DEFAULT_CONTAINER_LIMITS);
    expect(containerSettingsOf(offer({ pullPolicy: 'Never', pidsLimit: 64 }))).toEqual({
      policy: 'Never',
      timeoutMs: 300_000,
      limits: { ...DEFAULT_CONTAINER_LIMITS, pidsLimit: 64 },
    });
  });

  it('lower the built-in default to a maximum below it, so a run that gives nothing is never refused', () => {
    expect(containerLimitsOf(offer({ maxMemory: '512Mi', maxCpu: '500m' }))).toMatchObject({
      defaultMemory: '512Mi',
      defaultCpu: '500m',
      maxMemory: '512Mi',
      maxCpu: '500m',
    });
    expect(containerLimitsOf(offer({ maxMemory: '8Gi', maxCpu: '4' }))).toMatchObject({ defaultMemory: '1Gi', defaultCpu: '1' });
  });

  it('refuse a run asking above a maximum, saying what it asked and what is allowed', () => {
    const limits = containerLimitsOf(offer({ maxMemory: '2Gi', maxCpu: '2' }));
    const refusal = (resources: { cpu?: string; memory?: string }) => {
      try {
        refuseAboveMaximum(resources, limits);
        return null;
      } catch (error) {
        return error;
      }
    };
    expect(refusal({ memory: '2049Mi' })).toEqual(
      new ProviderError('provider_error', 'the workload asks for 2049Mi of memory; this provider allows at most 2Gi'),
    );
    expect(refusal({ cpu: '2001m' })).toEqual(
      new ProviderError('provider_error', 'the workload asks for 2001m CPU; this provider allows at most 2'),
    );
    expect((refusal({ cpu: '3' }) as ProviderError).code).toBe('provider_error');
    expect(refusal({ memory: '2048Mi', cpu: '2000m' })).toBeNull();
    expect(refusal({})).toBeNull();
  });

  it('refuse nothing without a maximum (the provider fills in a share of its host: hostMaximumMemory)', () => {
    expect(() => refuseAboveMaximum({ memory: '999999Gi', cpu: '999' }, DEFAULT_CONTAINER_LIMITS)).not.toThrow();
  });

  it("the host's share: three quarters of its memory, in Mi; a default above it is lowered to it", () => {
    expect(hostMaximumMemory(24 * 2 ** 30)).toBe('18432Mi');
    expect(hostMaximumMemory(1000)).toBe('1Mi');
    expect(withMaximumMemory(DEFAULT_CONTAINER_LIMITS, '768Mi')).toMatchObject({ maxMemory: '768Mi', defaultMemory: '768Mi' });
    expect(withMaximumMemory(DEFAULT_CONTAINER_LIMITS, '18432Mi')).toMatchObject({ maxMemory: '18432Mi', defaultMemory: '1Gi' });
  });
});
