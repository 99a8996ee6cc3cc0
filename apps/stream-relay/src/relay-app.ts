import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { credentialInUrlMiddleware, hardenForBrowsers } from '@wrs/auth';
import { createLogger, NestPinoLogger, requestLogMiddleware, type AppLogger } from '@wrs/observability';
import { RELAY_OPERATION } from '@wrs/contracts';
import {
  acceptMiddleware,
  answerClientErrorsWithProblems,
  methodNotAllowedMiddleware,
  ProblemFilter,
  requestIdMiddleware,
} from '@wrs/problem';
import { RelayModule, type RelayModuleOptions } from './relay.module';

export async function createRelayApp(
  options: RelayModuleOptions,
  allowedOrigins: readonly string[] = [],
  logger: AppLogger = createLogger('stream-relay', 'silent'),
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(RelayModule.forRoot(options), {
    bodyParser: false,
    logger: new NestPinoLogger(logger),
  });
  app.disable('x-powered-by');
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
  answerClientErrorsWithProblems(app.getHttpServer());
  const server = app.getHttpServer() as import('node:http').Server;
  // Streams are long; only the request itself must arrive quickly.
  server.headersTimeout = 10_000;
  server.requestTimeout = 0;
  return app;
}
