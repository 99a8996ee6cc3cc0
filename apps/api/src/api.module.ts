import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ACCESS_TOKEN_VERIFIER, BearerAuthGuard, type AccessTokenVerifier } from '@wrs/auth';
import type { ProviderOffer } from '@wrs/domain';
import { RunCommandBus } from '@wrs/messaging';
import { RunQueries, Workspaces } from '@wrs/persistence';
import { BUILD_INFO, MetaController, type BuildInfo } from './meta/meta.controller';
import { Failpoint } from './runs/failpoint';
import { IdempotencyCache } from './runs/idempotency-cache';
import { RunsController } from './runs/runs.controller';
import { PROVIDER_OFFERS, RunsService } from './runs/runs.service';
import { WorkspacesController } from './workspaces/workspaces.controller';

export interface ApiModuleOptions {
  readonly commands: RunCommandBus;
  readonly queries: RunQueries;
  readonly workspaces: Workspaces;
  readonly verifier: AccessTokenVerifier;
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
      controllers: [MetaController, WorkspacesController, RunsController],
      providers: [
        { provide: RunCommandBus, useValue: options.commands },
        { provide: RunQueries, useValue: options.queries },
        { provide: Workspaces, useValue: options.workspaces },
        { provide: ACCESS_TOKEN_VERIFIER, useValue: options.verifier },
        { provide: PROVIDER_OFFERS, useValue: options.offers },
        { provide: BUILD_INFO, useValue: options.build },
        { provide: IdempotencyCache, useValue: options.cache },
        { provide: Failpoint, useValue: options.failpoint },
        { provide: APP_GUARD, useClass: BearerAuthGuard },
        RunsService,
      ],
    };
  }
}
