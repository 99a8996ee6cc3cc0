import type { NestExpressApplication } from '@nestjs/platform-express';
import { contractOperations, isRelayOperation } from '@wrs/contracts';
import { createHttpService, type HttpMount } from '@wrs/edge';
import { createLogger, type AppLogger } from '@wrs/observability';
import type { ServiceEdgeSettings } from '@wrs/problem';
import { type ApiInfrastructure } from './api-infrastructure.module';
import { ApiModule } from './api.module';
import { BodyValidationPipe } from './validation.pipe';

export const API_PREFIX = 'api/v1';
export const MAX_BODY_BYTES = 64 * 1024;

export interface ApiAppSettings {
  readonly allowedOrigins?: readonly string[];
  readonly logger?: AppLogger;
  readonly edge?: ServiceEdgeSettings;
  /** The console's pages, when this process serves them (main does, the tests of the api alone do not). */
  readonly console?: HttpMount;
}

/** The API as a Nest application, not yet listening: main.ts and the tests both start it this way. */
export function createApiApp(infrastructure: ApiInfrastructure, settings: ApiAppSettings = {}): Promise<NestExpressApplication> {
  return createHttpService(ApiModule.forRoot(infrastructure), {
    logger: settings.logger ?? createLogger('api', 'silent'),
    prefix: API_PREFIX,
    operations: contractOperations().filter((op) => !isRelayOperation(op)),
    produces: ['application/json', 'application/problem+json'],
    bodyLimitBytes: MAX_BODY_BYTES,
    pipes: [new BodyValidationPipe()],
    // ingress-nginx asks the api, its default backend, for the page of its own 413/502/503/504.
    ingressDefaultBackend: true,
    allowedOrigins: settings.allowedOrigins,
    edge: settings.edge,
    mounts: settings.console ? [settings.console] : [],
  });
}
