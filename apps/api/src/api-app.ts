import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { credentialInUrlMiddleware, hardenForBrowsers } from '@wrs/auth';
import { createLogger, edgeReporter, NestPinoLogger, requestLogMiddleware, type AppLogger } from '@wrs/observability';
import { contractOperations, isRelayOperation } from '@wrs/contracts';
import {
  acceptMiddleware,
  DEFAULT_SERVICE_EDGE,
  guardHttpEdge,
  ingressErrorPageMiddleware,
  jsonBodyMiddleware,
  methodNotAllowedMiddleware,
  ProblemFilter,
  requestIdMiddleware,
  type ServiceEdgeSettings,
} from '@wrs/problem';
import { ApiModule, type ApiModuleOptions } from './api.module';
import { BodyValidationPipe } from './validation.pipe';

export const API_PREFIX = 'api/v1';
export const MAX_BODY_BYTES = 64 * 1024;

/** The API as a Nest application, not yet listening: main.ts and the tests both start it this way. */
export async function createApiApp(
  options: ApiModuleOptions,
  allowedOrigins: readonly string[] = [],
  logger: AppLogger = createLogger('api', 'silent'),
  edge: ServiceEdgeSettings = DEFAULT_SERVICE_EDGE,
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(options), {
    bodyParser: false,
    logger: new NestPinoLogger(logger),
  });
  app.disable('x-powered-by');
  // req.ip believes X-Forwarded-For only from these hops (it keys the failed-authentication limit).
  app.set('trust proxy', edge.trustedProxies.split(',').map((hop) => hop.trim()));
  // Express's automatic weak ETag would shadow the run's version ETag; we set ETags ourselves.
  app.set('etag', false);
  app.use(requestIdMiddleware);
  // The problem ingress-nginx shows for its own 413/502/503/504 (it asks its default backend, the api).
  app.use(ingressErrorPageMiddleware);
  app.use(requestLogMiddleware(logger));
  hardenForBrowsers(app, allowedOrigins);
  app.use(credentialInUrlMiddleware);
  app.use(methodNotAllowedMiddleware(`/${API_PREFIX}`, contractOperations().filter((op) => !isRelayOperation(op))));
  app.use(acceptMiddleware(['application/json', 'application/problem+json']));
  app.use(jsonBodyMiddleware({ limitBytes: MAX_BODY_BYTES }));
  app.setGlobalPrefix(API_PREFIX);
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(new BodyValidationPipe());
  // Parser errors, slow clients, a missing Host, Expect and CONNECT: problems, logged and counted.
  guardHttpEdge(app.getHttpServer(), { ...edge, onAnswer: edgeReporter(logger) });
  return app;
}
