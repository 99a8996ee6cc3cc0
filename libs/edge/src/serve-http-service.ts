import type { NestExpressApplication } from '@nestjs/platform-express';
import type { HttpServiceEnv, ServiceLifecycle } from '@wrs/config';
import {
  announceListening,
  createLogger,
  natsCheck,
  postgresCheck,
  redisCheck,
  startOpsServer,
  startTracing,
  type AppLogger,
} from '@wrs/observability';
import type { ServiceEdgeSettings } from '@wrs/problem';
import type { HttpServiceConnections } from './http-service-connections';

/** An HTTP service's application and what it connected to, as its main builds them. */
export interface HttpServiceParts {
  readonly app: NestExpressApplication;
  /** What readiness checks. */
  readonly connections: Pick<HttpServiceConnections, 'nc' | 'db' | 'redis'>;
  close(): Promise<void>;
}

/** The edge settings an HTTP service reads from its configuration. */
export function serviceEdgeOf(config: HttpServiceEnv): ServiceEdgeSettings {
  return {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    trustedProxies: config.TRUSTED_PROXIES,
  };
}

/**
 * The body of an HTTP service's main (inside runService): tracing first, then the service's own parts,
 * its port and the operator port, then the announcement. Answers how to stop, in the reverse order.
 */
export async function serveHttpService(
  service: string,
  config: HttpServiceEnv,
  lifecycle: ServiceLifecycle,
  start: (logger: AppLogger) => Promise<HttpServiceParts>,
): Promise<() => Promise<void>> {
  lifecycle.drainDelayMs = config.SHUTDOWN_DELAY_MS;
  const tracing = startTracing({
    service,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    sampler: config.OTEL_TRACES_SAMPLER,
    samplerRatio: config.OTEL_TRACES_SAMPLER_ARG,
  });
  const parts = await start(createLogger(service, config.LOG_LEVEL));
  await parts.app.listen(config.PORT, config.HOST);
  const { nc, db, redis } = parts.connections;
  const ops = await startOpsServer({
    service,
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    // Redis is optional: what needs it fails open (rate limits, stream counts) or answers 503 (sessions).
    checks: [natsCheck(nc), postgresCheck(db), redisCheck(redis, true)],
    draining: () => lifecycle.draining,
  });
  announceListening(service, { url: await parts.app.getUrl(), opsUrl: ops.url });
  return async () => {
    await parts.app.close();
    await parts.close();
    await tracing.shutdown();
    await ops.close();
  };
}
