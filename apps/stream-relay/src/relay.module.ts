import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AUTHENTICATOR, AuthGuard, type Authenticator } from '@wrs/auth';
import { RunEventFeed, StreamLeases } from '@wrs/messaging';
import { RunQueries } from '@wrs/persistence';
import { RELAY_OPTIONS, RunEventsController, type RelayOptions } from './run-events.controller';

export interface RelayModuleOptions {
  readonly feed: RunEventFeed;
  readonly queries: RunQueries;
  readonly leases: StreamLeases;
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
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
