import { Failpoint } from '@wrs/config';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AUTH_FAILURE_HOOK, AUTHENTICATOR, AuthGuard, CredentialFingerprintIndex, SessionStore, type Authenticator } from '@wrs/auth';
import type { PublicKek } from '@wrs/credentials';
import type { ProviderOffer } from '@wrs/domain';
import { authFailureThrottle, EffectiveLimits, RATE_LIMIT_FAILURES, RateLimitGuard } from '@wrs/limits';
import { RateLimiter, RunCommandBus, RunCommandHandler, RunEndings, RunEventStore } from '@wrs/messaging';
import { decisionConflicts } from '@wrs/observability';
import { ProviderCredentials, RunQueries, Webhooks, Workspaces } from '@wrs/persistence';
import { BUILD_INFO, MetaController, type BuildInfo } from './meta/meta.controller';
import { CREDENTIALS_OPTIONS, ProviderCredentialsController } from './provider-credentials/provider-credentials.controller';
import { ProviderCredentialsService } from './provider-credentials/provider-credentials.service';
import { IdempotencyCache } from './runs/idempotency-cache';
import { RunListService } from './runs/run-list.service';
import { RunsController } from './runs/runs.controller';
import { UnprojectedRuns } from './runs/unprojected-runs';
import { PROVIDER_OFFERS, RunsService } from './runs/runs.service';
import { RunCancelService } from './runs/run-cancel.service';
import { RunWaits } from './runs/run-waits';
import { SESSION_ENDS, SESSION_TTL, SessionsController, type SessionEnds } from './sessions/sessions.controller';
import { SERVICE_LIMITS, WorkspacesController } from './workspaces/workspaces.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WebhooksService } from './webhooks/webhooks.service';

export interface ApiModuleOptions {
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

/** Wires already-connected dependencies in: connecting (and failing clearly) happens before Nest starts. */
@Module({})
export class ApiModule {
  static forRoot(options: ApiModuleOptions): DynamicModule {
    return {
      module: ApiModule,
      controllers: [MetaController, WorkspacesController, RunsController, SessionsController, ProviderCredentialsController, WebhooksController],
      providers: [
        { provide: RunCommandBus, useValue: options.commands },
        { provide: RunEventStore, useValue: options.events },
        { provide: RunEndings, useValue: options.endings },
        // The api decides cancels itself: load, decide, append, again on a conflict.
        { provide: RunCommandHandler, useFactory: (events: RunEventStore) => new RunCommandHandler(events, () => decisionConflicts.inc()), inject: [RunEventStore] },
        { provide: RunQueries, useValue: options.queries },
        { provide: Workspaces, useValue: options.workspaces },
        { provide: ProviderCredentials, useValue: options.credentials },
        { provide: Webhooks, useValue: options.webhooks },
        { provide: AUTHENTICATOR, useValue: options.authenticator },
        { provide: SessionStore, useValue: options.sessions },
        { provide: CredentialFingerprintIndex, useValue: options.fingerprints },
        { provide: SESSION_TTL, useValue: options.sessionTtlSeconds },
        { provide: SESSION_ENDS, useValue: options.sessionEnds },
        { provide: CREDENTIALS_OPTIONS, useValue: { publicKeks: options.publicKeks, offers: options.offers } },
        { provide: PROVIDER_OFFERS, useValue: options.offers },
        { provide: BUILD_INFO, useValue: options.build },
        { provide: IdempotencyCache, useValue: options.cache },
        { provide: Failpoint, useValue: options.failpoint },
        { provide: EffectiveLimits, useValue: options.limits },
        { provide: SERVICE_LIMITS, useValue: options.serviceLimits },
        { provide: RateLimiter, useValue: options.rateLimiter },
        { provide: RATE_LIMIT_FAILURES, useValue: rateLimitFailOpenWarning('api') },
        // Guards run in this order: who is calling, then how fast.
        { provide: AUTH_FAILURE_HOOK, useValue: authFailureThrottle(options.rateLimiter, options.authFailuresPerMinute ?? 60) },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        RunsService,
        RunCancelService,
        RunWaits,
        RunListService,
        UnprojectedRuns,
        ProviderCredentialsService,
        WebhooksService,
      ],
    };
  }
}

/** Rate limiting failed open (Redis unreachable): say so, at most once a minute. */
export function rateLimitFailOpenWarning(service: string): () => void {
  let last = 0;
  return () => {
    if (Date.now() - last > 60_000) {
      last = Date.now();
      console.error(JSON.stringify({ level: 'warn', service, msg: 'rate limiting is failing open: Redis unreachable' }));
    }
  };
}
