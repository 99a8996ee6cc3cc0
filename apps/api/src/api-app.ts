import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { jsonBodyMiddleware, ProblemFilter, requestIdMiddleware } from '@wrs/problem';
import { ApiModule, type ApiModuleOptions } from './api.module';
import { BodyValidationPipe } from './validation.pipe';

export const API_PREFIX = 'api/v1';
export const MAX_BODY_BYTES = 64 * 1024;

/** The API as a Nest application, not yet listening: main.ts and the tests both start it this way. */
export async function createApiApp(options: ApiModuleOptions): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(options), {
    bodyParser: false,
    logger: ['error', 'warn'],
  });
  app.disable('x-powered-by');
  // Express's automatic weak ETag would shadow the run's version ETag; we set ETags ourselves.
  app.set('etag', false);
  app.use(requestIdMiddleware);
  app.use(jsonBodyMiddleware({ limitBytes: MAX_BODY_BYTES }));
  app.setGlobalPrefix(API_PREFIX);
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(new BodyValidationPipe());
  app.enableShutdownHooks();
  return app;
}
