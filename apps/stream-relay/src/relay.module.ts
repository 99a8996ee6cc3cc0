import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ACCESS_TOKEN_VERIFIER, BearerAuthGuard, type AccessTokenVerifier } from '@wrs/auth';
import { RunEventFeed } from '@wrs/messaging';
import { RELAY_OPTIONS, RunEventsController, type RelayOptions } from './run-events.controller';

export interface RelayModuleOptions {
  readonly feed: RunEventFeed;
  readonly verifier: AccessTokenVerifier;
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
        { provide: ACCESS_TOKEN_VERIFIER, useValue: options.verifier },
        { provide: RELAY_OPTIONS, useValue: options.relay },
        { provide: APP_GUARD, useClass: BearerAuthGuard },
      ],
    };
  }
}
