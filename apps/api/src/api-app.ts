import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { credentialInUrlMiddleware, hardenForBrowsers } from '@wrs/auth';
import { createLogger, NestPinoLogger, requestLogMiddleware, type AppLogger } from '@wrs/observability';
import { contractOperations, isRelayOperation } from '@wrs/contracts';
import {
  acceptMiddleware,
  answerClientErrorsWithProblems,
  jsonBodyMiddleware,
  methodNotAllowedMiddleware,
  ProblemFilter,
  requestIdMiddleware,
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
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(options), {
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
  app.use(methodNotAllowedMiddleware(`/${API_PREFIX}`, contractOperations().filter((op) => !isRelayOperation(op))));
  app.use(acceptMiddleware(['application/json', 'application/problem+json']));
  app.use(jsonBodyMiddleware({ limitBytes: MAX_BODY_BYTES }));
  app.setGlobalPrefix(API_PREFIX);
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(new BodyValidationPipe());
  answerClientErrorsWithProblems(app.getHttpServer());
  const server = app.getHttpServer() as import('node:http').Server;
  // A request (headers and body) must arrive within these times: slow-loris clients do not hold sockets.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return app;
}
