import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AUTHENTICATOR, AuthGuard, type Authenticator } from '@wrs/auth';
import { RunEventFeed } from '@wrs/messaging';
import { RELAY_OPTIONS, RunEventsController, type RelayOptions } from './run-events.controller';

export interface RelayModuleOptions {
  readonly feed: RunEventFeed;
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
        { provide: AUTHENTICATOR, useValue: options.authenticator },
        { provide: RELAY_OPTIONS, useValue: options.relay },
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
