import type { NestExpressApplication } from '@nestjs/platform-express';
import { RELAY_OPERATION } from '@wrs/contracts';
import { createHttpService } from '@wrs/edge';
import { createLogger, type AppLogger } from '@wrs/observability';
import type { ServiceEdgeSettings } from '@wrs/problem';
import { RelayModule, type RelayModuleOptions } from './relay.module';

export interface RelayAppSettings {
  readonly allowedOrigins?: readonly string[];
  readonly logger?: AppLogger;
  readonly edge?: ServiceEdgeSettings;
}

/** The relay as a Nest application, not yet listening: main.ts and the tests both start it this way. */
export function createRelayApp(options: RelayModuleOptions, settings: RelayAppSettings = {}): Promise<NestExpressApplication> {
  return createHttpService(RelayModule.forRoot(options), {
    logger: settings.logger ?? createLogger('stream-relay', 'silent'),
    prefix: 'api/v1',
    operations: [RELAY_OPERATION],
    produces: ['text/event-stream', 'application/problem+json'],
    allowedOrigins: settings.allowedOrigins,
    edge: settings.edge,
  });
}
