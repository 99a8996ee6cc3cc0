import 'reflect-metadata';
import { loadConfig, RelayEnv, runService } from '@wrs/config';
import { announceListening, createLogger, natsCheck, postgresCheck, redisCheck, startOpsServer, startTracing } from '@wrs/observability';
import { createRelayApp } from './relay-app';
import { connectRelayDependencies } from './relay-dependencies';

void runService('stream-relay', async (lifecycle) => {
  const config = loadConfig(RelayEnv, process.env);
  lifecycle.drainDelayMs = config.SHUTDOWN_DELAY_MS;
  const tracing = startTracing({ service: 'stream-relay', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const deps = await connectRelayDependencies(config);
  const logger = createLogger('stream-relay', config.LOG_LEVEL);
  const app = await createRelayApp(deps.module, deps.allowedOrigins, logger, {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    trustedProxies: config.TRUSTED_PROXIES,
  });
  await app.listen(config.PORT, config.HOST);
  const ops = await startOpsServer({
    service: 'stream-relay',
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    // Postgres answers who may stream (limits) and the `reset` state; Redis only counts streams (fails open).
    checks: [natsCheck(deps.connections.nc), postgresCheck(deps.connections.db), redisCheck(deps.connections.redis, true)],
    draining: () => lifecycle.draining,
  });
  announceListening('stream-relay', { url: await app.getUrl(), opsUrl: ops.url });
  return async () => {
    await app.close();
    await deps.close();
    await tracing.shutdown();
    await ops.close();
  };
});
