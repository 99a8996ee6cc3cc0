import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AUTHENTICATOR, AuthGuard, CredentialFingerprintIndex, SessionStore, type Authenticator } from '@wrs/auth';
import type { PublicKek } from '@wrs/credentials';
import type { ProviderOffer } from '@wrs/domain';
import { RunCommandBus } from '@wrs/messaging';
import { ProviderCredentials, RunQueries, Workspaces } from '@wrs/persistence';
import { BUILD_INFO, MetaController, type BuildInfo } from './meta/meta.controller';
import { CREDENTIALS_OPTIONS, ProviderCredentialsController } from './provider-credentials/provider-credentials.controller';
import { ProviderCredentialsService } from './provider-credentials/provider-credentials.service';
import { Failpoint } from './runs/failpoint';
import { IdempotencyCache } from './runs/idempotency-cache';
import { RunsController } from './runs/runs.controller';
import { PROVIDER_OFFERS, RunsService } from './runs/runs.service';
import { SESSION_TTL, SessionsController } from './sessions/sessions.controller';
import { WorkspacesController } from './workspaces/workspaces.controller';

export interface ApiModuleOptions {
  readonly commands: RunCommandBus;
  readonly queries: RunQueries;
  readonly workspaces: Workspaces;
  readonly credentials: ProviderCredentials;
  readonly authenticator: Authenticator;
  readonly sessions: SessionStore;
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
      controllers: [MetaController, WorkspacesController, RunsController, SessionsController, ProviderCredentialsController],
      providers: [
        { provide: RunCommandBus, useValue: options.commands },
        { provide: RunQueries, useValue: options.queries },
        { provide: Workspaces, useValue: options.workspaces },
        { provide: ProviderCredentials, useValue: options.credentials },
        { provide: AUTHENTICATOR, useValue: options.authenticator },
        { provide: SessionStore, useValue: options.sessions },
        { provide: CredentialFingerprintIndex, useValue: options.fingerprints },
        { provide: SESSION_TTL, useValue: options.sessionTtlSeconds },
        { provide: CREDENTIALS_OPTIONS, useValue: { publicKeks: options.publicKeks, offers: options.offers } },
        { provide: PROVIDER_OFFERS, useValue: options.offers },
        { provide: BUILD_INFO, useValue: options.build },
        { provide: IdempotencyCache, useValue: options.cache },
        { provide: Failpoint, useValue: options.failpoint },
        { provide: APP_GUARD, useClass: AuthGuard },
        RunsService,
        ProviderCredentialsService,
      ],
    };
  }
}
