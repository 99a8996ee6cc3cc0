import type { NestExpressApplication } from '@nestjs/platform-express';
import { contractOperations, isRelayOperation } from '@wrs/contracts';
import { createHttpService } from '@wrs/edge';
import type { AppLogger } from '@wrs/observability';
import type { ServiceEdgeSettings } from '@wrs/problem';
import { FloorModule } from './floor.module';

/**
 * The api's Nest-on-Express application (createHttpService with the api's settings, as
 * apps/api/src/api-app.ts passes them) around the no-op module: what any api request pays before our
 * own work starts. Left out: the body validation pipe (the no-op takes no body parameter) and the console's pages.
 */
export function createFloorApp(logger: AppLogger, edge: ServiceEdgeSettings): Promise<NestExpressApplication> {
  return createHttpService(FloorModule, {
    logger,
    prefix: 'api/v1',
    operations: contractOperations().filter((op) => !isRelayOperation(op)),
    produces: ['application/json', 'application/problem+json'],
    bodyLimitBytes: 64 * 1024,
    ingressDefaultBackend: true,
    edge,
  });
}
