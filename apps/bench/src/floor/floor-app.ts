import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { credentialInUrlMiddleware, hardenForBrowsers } from '@wrs/auth';
import { contractOperations, isRelayOperation } from '@wrs/contracts';
import { edgeReporter, NestPinoLogger, requestLogMiddleware, type AppLogger } from '@wrs/observability';
import {
  acceptMiddleware,
  guardHttpEdge,
  ingressErrorPageMiddleware,
  jsonBodyMiddleware,
  methodNotAllowedMiddleware,
  ProblemFilter,
  requestIdMiddleware,
  type ServiceEdgeSettings,
} from '@wrs/problem';
import { FloorModule } from './floor.module';

/**
 * The api's Nest-on-Express application with its middleware, filter and edge guard, in the order
 * createApiApp (apps/api/src/api-app.ts) sets them, around the no-op module: what any api request pays
 * before our own work starts. Keep the two in step until both start through one shared function.
 */
export async function createFloorApp(logger: AppLogger, edge: ServiceEdgeSettings): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, { bodyParser: false, logger: new NestPinoLogger(logger) });
  app.disable('x-powered-by');
  app.set('trust proxy', edge.trustedProxies.split(',').map((hop) => hop.trim()));
  app.set('etag', false);
  app.use(requestIdMiddleware);
  app.use(ingressErrorPageMiddleware);
  app.use(requestLogMiddleware(logger));
  hardenForBrowsers(app, []);
  app.use(credentialInUrlMiddleware);
  app.use(methodNotAllowedMiddleware('/api/v1', contractOperations().filter((op) => !isRelayOperation(op))));
  app.use(acceptMiddleware(['application/json', 'application/problem+json']));
  app.use(jsonBodyMiddleware({ limitBytes: 64 * 1024 }));
  app.setGlobalPrefix('api/v1');
  app.useGlobalFilters(new ProblemFilter());
  guardHttpEdge(app.getHttpServer(), { ...edge, onAnswer: edgeReporter(logger) });
  return app;
}
