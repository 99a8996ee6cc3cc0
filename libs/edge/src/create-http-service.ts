import type { DynamicModule, PipeTransform, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { credentialInUrlMiddleware, hardenForBrowsers } from '@wrs/auth';
import { trustProxySetting } from '@wrs/config';
import { edgeReporter, NestPinoLogger, requestLogMiddleware, type AppLogger } from '@wrs/observability';
import {
  acceptMiddleware,
  DEFAULT_SERVICE_EDGE,
  guardHttpEdge,
  ingressErrorPageMiddleware,
  jsonBodyMiddleware,
  methodNotAllowedMiddleware,
  ProblemFilter,
  requestIdMiddleware,
  type Operation,
  type ServiceEdgeSettings,
} from '@wrs/problem';
import type { RequestHandler } from 'express';
import { SharedShapeExpressAdapter } from './shared-shape-express-adapter';

/** Express handlers served outside the prefix, e.g. the console's pages. */
export interface HttpMount {
  readonly path: string;
  readonly handlers: readonly RequestHandler[];
}

/** What one HTTP service differs in; everything else is the same edge for all of them. */
export interface HttpServiceOptions {
  readonly logger: AppLogger;
  /** The path every operation is under, without slashes (`api/v1`). */
  readonly prefix: string;
  /** The contract's operations this service serves: another method on their paths is a 405 with Allow. */
  readonly operations: readonly Operation[];
  /** The media types it answers with: a request that accepts none of them is a 406. */
  readonly produces: readonly string[];
  /** JSON bodies up to this many bytes; unset, the service reads no body. */
  readonly bodyLimitBytes?: number;
  readonly pipes?: readonly PipeTransform[];
  /** Answers ingress-nginx's own errors as problems (the service is the ingress's default backend). */
  readonly ingressDefaultBackend?: boolean;
  /** Origins whose pages may call the service (CORS); none by default. */
  readonly allowedOrigins?: readonly string[];
  readonly mounts?: readonly HttpMount[];
  readonly edge?: ServiceEdgeSettings;
}

/**
 * A Nest-on-Express app with our edge (request id, logging, browser headers, CORS, early refusals, problem
 * filter, socket guard), not yet listening. The api, the relay and the bench start this way.
 */
export async function createHttpService(module: Type | DynamicModule, options: HttpServiceOptions): Promise<NestExpressApplication> {
  const { logger, edge = DEFAULT_SERVICE_EDGE } = options;
  const app = await NestFactory.create<NestExpressApplication>(module, new SharedShapeExpressAdapter(), {
    bodyParser: false,
    logger: new NestPinoLogger(logger),
  });
  app.disable('x-powered-by');
  // req.ip believes X-Forwarded-For only from these hops (it keys the failed-authentication limit).
  app.set('trust proxy', trustProxySetting(edge.trustedProxies));
  // Express's automatic weak ETag would shadow the run's version ETag; we set ETags ourselves.
  app.set('etag', false);
  app.use(requestIdMiddleware);
  if (options.ingressDefaultBackend) {
    app.use(ingressErrorPageMiddleware);
  }
  app.use(requestLogMiddleware(logger));
  hardenForBrowsers(app, options.allowedOrigins ?? []);
  app.use(credentialInUrlMiddleware);
  app.use(methodNotAllowedMiddleware(`/${options.prefix}`, options.operations));
  app.use(acceptMiddleware(options.produces));
  if (options.bodyLimitBytes !== undefined) {
    app.use(jsonBodyMiddleware({ limitBytes: options.bodyLimitBytes }));
  }
  for (const mount of options.mounts ?? []) {
    app.use(mount.path, ...mount.handlers);
  }
  app.setGlobalPrefix(options.prefix);
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(...(options.pipes ?? []));
  // Parser errors, slow clients, a missing Host, Expect and CONNECT: problems, logged and counted.
  guardHttpEdge(app.getHttpServer(), { ...edge, onAnswer: edgeReporter(logger) });
  return app;
}
