import { Global, Module, type DynamicModule, type ValueProvider } from '@nestjs/common';
import type { Failpoint } from '@wrs/config';
import { AUTHENTICATOR, type Authenticator, type CredentialFingerprintIndex, type SessionStore } from '@wrs/auth';
import type { PublicKek } from '@wrs/credentials';
import type { ProviderOffer } from '@wrs/domain';
import type { EffectiveLimits } from '@wrs/limits';
import type { RateLimiter, RunCommandBus, RunEndings, RunEventStore } from '@wrs/messaging';
import type { ProviderCredentials, RunQueries, Webhooks, Workspaces } from '@wrs/persistence';
import { BUILD_INFO, type BuildInfo } from './meta/meta.controller';
import { CREDENTIALS_OPTIONS } from './provider-credentials/credentials-options';
import type { IdempotencyCache } from './runs/idempotency-cache';
import { PROVIDER_OFFERS } from './runs/runs.service';
import { SESSION_ENDS, SESSION_TTL, type SessionEnds } from './sessions/sessions.controller';
import { SERVICE_LIMITS } from './workspaces/workspaces.controller';

/** What the api's features use, connected before Nest starts (so a dependency that is down fails clearly). */
export interface ApiInfrastructure {
  readonly commands: RunCommandBus;
  readonly events: RunEventStore;
  /** Tells `Prefer: wait` requests when their run ends (one subscription for the process). */
  readonly endings: RunEndings;
  readonly queries: RunQueries;
  readonly workspaces: Workspaces;
  readonly limits: EffectiveLimits;
  readonly serviceLimits: Record<string, number>;
  readonly rateLimiter: RateLimiter;
  /** Requests with a failing credential per client address and minute (AUTH_FAILURES_PER_MINUTE). */
  readonly authFailuresPerMinute?: number;
  readonly credentials: ProviderCredentials;
  readonly webhooks: Webhooks;
  readonly authenticator: Authenticator;
  readonly sessions: SessionStore;
  /** Logout, told to every replica (the revocation stream), so the session's open streams end. */
  readonly sessionEnds: SessionEnds;
  readonly fingerprints: CredentialFingerprintIndex;
  readonly sessionTtlSeconds: number;
  readonly publicKeks: readonly PublicKek[];
  readonly offers: readonly ProviderOffer[];
  readonly build: BuildInfo;
  readonly cache: IdempotencyCache;
  readonly failpoint: Failpoint;
}

/**
 * Provides the connected objects once, to every feature module: each under its own class, so a
 * feature injects it by type and a new one is added where it is connected; plain values under tokens.
 */
@Global()
@Module({})
export class ApiInfrastructureModule {
  static forRoot(infrastructure: ApiInfrastructure): DynamicModule {
    const providers: ValueProvider[] = [
      ...byOwnClass(infrastructure),
      { provide: AUTHENTICATOR, useValue: infrastructure.authenticator },
      { provide: SESSION_ENDS, useValue: infrastructure.sessionEnds },
      { provide: SESSION_TTL, useValue: infrastructure.sessionTtlSeconds },
      { provide: SERVICE_LIMITS, useValue: infrastructure.serviceLimits },
      { provide: PROVIDER_OFFERS, useValue: infrastructure.offers },
      { provide: CREDENTIALS_OPTIONS, useValue: { publicKeks: infrastructure.publicKeks, offers: infrastructure.offers } },
      { provide: BUILD_INFO, useValue: infrastructure.build },
    ];
    return { module: ApiInfrastructureModule, providers, exports: providers.map((provider) => provider.provide) };
  }
}

/** Every value that is an instance of a class of ours (not a plain object, array or number), under that class. */
function byOwnClass(infrastructure: ApiInfrastructure): ValueProvider[] {
  const instances = Object.values(infrastructure).filter(
    (value): value is object =>
      typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype,
  );
  const classes = instances.map((instance) => instance.constructor);
  if (new Set(classes).size !== classes.length) {
    throw new Error('two api dependencies share a class: give one of them a token');
  }
  return instances.map((instance) => ({ provide: instance.constructor, useValue: instance }));
}
