import 'reflect-metadata';
import { join } from 'node:path';
import { ApiEnv, loadConfig, parseProviderOffers, runService } from '@wrs/config';
import { announceListening, createLogger, natsCheck, postgresCheck, redisCheck, startOpsServer, startTracing } from '@wrs/observability';
import { createApiApp } from './api-app';
import { connectApiDependencies } from './api-dependencies';
import { CONSOLE_PATH, consoleStaticMiddleware } from './console/console-static';

void runService('api', async (lifecycle) => {
  const config = loadConfig(ApiEnv, process.env);
  lifecycle.drainDelayMs = config.SHUTDOWN_DELAY_MS;
  const tracing = startTracing({ service: 'api', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const offers = parseProviderOffers(config.PROVIDERS_JSON);
  const deps = await connectApiDependencies(config);
  const logger = createLogger('api', config.LOG_LEVEL);
  const app = await createApiApp({ ...deps.module, offers }, deps.allowedOrigins, logger, {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    trustedProxies: config.TRUSTED_PROXIES,
  });
  // The web console's built files (dist/apps/console), on the API's origin so its session cookie works.
  app.use(CONSOLE_PATH, consoleStaticMiddleware(join(__dirname, '..', '..', 'console')));
  await app.listen(config.PORT, config.HOST);
  const ops = await startOpsServer({
    service: 'api',
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    // Redis is optional: idempotency holds through JetStream and rate limits fail open without it.
    checks: [natsCheck(deps.connections.nc), postgresCheck(deps.connections.db), redisCheck(deps.connections.redis, true)],
    draining: () => lifecycle.draining,
  });
  announceListening('api', { url: await app.getUrl(), opsUrl: ops.url });
  return async () => {
    await app.close();
    await deps.close();
    await tracing.shutdown();
    await ops.close();
  };
});
