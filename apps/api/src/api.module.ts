import { Module, type DynamicModule } from '@nestjs/common';
import { edgeGuards, rateLimitFailOpenWarning } from '@wrs/edge';
import { ApiInfrastructureModule, type ApiInfrastructure } from './api-infrastructure.module';
import { MetaModule } from './meta/meta.module';
import { ProviderCredentialsModule } from './provider-credentials/provider-credentials.module';
import { RunsModule } from './runs/runs.module';
import { SessionsModule } from './sessions/sessions.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

/** The api: its features over the infrastructure connected before Nest starts, behind the global guards. */
@Module({})
export class ApiModule {
  static forRoot(infrastructure: ApiInfrastructure): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ApiInfrastructureModule.forRoot(infrastructure),
        MetaModule,
        WorkspacesModule,
        RunsModule,
        SessionsModule,
        ProviderCredentialsModule,
        WebhooksModule,
      ],
      providers: edgeGuards({
        rateLimiter: infrastructure.rateLimiter,
        authFailuresPerMinute: infrastructure.authFailuresPerMinute,
        onRateLimitFailOpen: rateLimitFailOpenWarning('api'),
      }),
    };
  }
}
