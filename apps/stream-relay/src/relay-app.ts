import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { credentialInUrlMiddleware, hardenForBrowsers } from '@wrs/auth';
import { createLogger, edgeReporter, NestPinoLogger, requestLogMiddleware, type AppLogger } from '@wrs/observability';
import { RELAY_OPERATION } from '@wrs/contracts';
import {
  acceptMiddleware,
  DEFAULT_SERVICE_EDGE,
  guardHttpEdge,
  methodNotAllowedMiddleware,
  ProblemFilter,
  requestIdMiddleware,
  type ServiceEdgeSettings,
} from '@wrs/problem';
import { RelayModule, type RelayModuleOptions } from './relay.module';

export async function createRelayApp(
  options: RelayModuleOptions,
  allowedOrigins: readonly string[] = [],
  logger: AppLogger = createLogger('stream-relay', 'silent'),
  edge: ServiceEdgeSettings = DEFAULT_SERVICE_EDGE,
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(RelayModule.forRoot(options), {
    bodyParser: false,
    logger: new NestPinoLogger(logger),
  });
  app.disable('x-powered-by');
  // req.ip believes X-Forwarded-For only from these hops (it keys the failed-authentication limit).
  app.set('trust proxy', edge.trustedProxies.split(',').map((hop) => hop.trim()));
  // Express's automatic weak ETag would shadow the run's version ETag; we set ETags ourselves.
  app.set('etag', false);
  app.use(requestIdMiddleware);
  app.use(requestLogMiddleware(logger));
  hardenForBrowsers(app, allowedOrigins);
  app.use(credentialInUrlMiddleware);
  app.use(methodNotAllowedMiddleware('/api/v1', [RELAY_OPERATION]));
  app.use(acceptMiddleware(['text/event-stream', 'application/problem+json']));
  app.setGlobalPrefix('api/v1');
  app.useGlobalFilters(new ProblemFilter());
  // Parser errors, slow clients, a missing Host, Expect and CONNECT: problems, logged and counted.
  guardHttpEdge(app.getHttpServer(), { ...edge, onAnswer: edgeReporter(logger) });
  return app;
}
