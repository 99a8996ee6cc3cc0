import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AUTH_FAILURE_HOOK, AUTHENTICATOR, AuthGuard, type Authenticator } from '@wrs/auth';
import { authFailureThrottle, EffectiveLimits, RATE_LIMIT_FAILURES, RateLimitGuard } from '@wrs/limits';
import { RateLimiter } from '@wrs/messaging';
import { RunQueries } from '@wrs/persistence';
import { CredentialWatch } from './credential-watch';
import { RunEventFeed } from './feed/run-event-feed';
import { StreamLeases } from './feed/stream-leases';
import { RELAY_OPTIONS, RunEventsController, type RelayOptions } from './run-events.controller';

export interface RelayModuleOptions {
  readonly feed: RunEventFeed;
  readonly queries: RunQueries;
  readonly leases: StreamLeases;
  readonly limits: EffectiveLimits;
  readonly rateLimiter: RateLimiter;
  /** Requests with a failing credential per client address and minute (AUTH_FAILURES_PER_MINUTE). */
  readonly authFailuresPerMinute?: number;
  readonly authenticator: Authenticator;
  /** Ends open streams when their credential ends. */
  readonly credentialWatch: CredentialWatch;
  readonly relay: RelayOptions;
}

@Module({})
export class RelayModule {
  static forRoot(options: RelayModuleOptions): DynamicModule {
    return {
      module: RelayModule,
      controllers: [RunEventsController],
      providers: [
        { provide: RunEventFeed, useValue: options.feed },
        { provide: RunQueries, useValue: options.queries },
        { provide: StreamLeases, useValue: options.leases },
        { provide: AUTHENTICATOR, useValue: options.authenticator },
        { provide: RELAY_OPTIONS, useValue: options.relay },
        { provide: CredentialWatch, useValue: options.credentialWatch },
        { provide: EffectiveLimits, useValue: options.limits },
        { provide: RateLimiter, useValue: options.rateLimiter },
        { provide: RATE_LIMIT_FAILURES, useValue: () => undefined },
        { provide: AUTH_FAILURE_HOOK, useValue: authFailureThrottle(options.rateLimiter, options.authFailuresPerMinute ?? 60) },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
    };
  }
}
