import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AUTHENTICATOR, AuthGuard, type Authenticator } from '@wrs/auth';
import { EffectiveLimits, RATE_LIMIT_FAILURES, RateLimitGuard } from '@wrs/limits';
import { RateLimiter, RunEventFeed, StreamLeases } from '@wrs/messaging';
import { RunQueries } from '@wrs/persistence';
import { RELAY_OPTIONS, RunEventsController, type RelayOptions } from './run-events.controller';

export interface RelayModuleOptions {
  readonly feed: RunEventFeed;
  readonly queries: RunQueries;
  readonly leases: StreamLeases;
  readonly limits: EffectiveLimits;
  readonly rateLimiter: RateLimiter;
  readonly authenticator: Authenticator;
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
        { provide: EffectiveLimits, useValue: options.limits },
        { provide: RateLimiter, useValue: options.rateLimiter },
        { provide: RATE_LIMIT_FAILURES, useValue: () => undefined },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
    };
  }
}
