import 'reflect-metadata';
import { HttpServiceEnv, loadConfig, runService } from '@wrs/config';
import { announceListening, createLogger, startTracing } from '@wrs/observability';
import { createFloorApp } from './floor-app';

// The framework floor as a process of its own, started the way apps/api/src/main.ts starts the api
// (same config, tracing and logger), without the api's dependencies and guards.
void runService('bench-floor', async () => {
  const config = loadConfig(HttpServiceEnv, process.env);
  const tracing = startTracing({ service: 'bench-floor', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const logger = createLogger('bench-floor', config.LOG_LEVEL);
  const app = await createFloorApp(logger, {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    trustedProxies: config.TRUSTED_PROXIES,
  });
  await app.listen(config.PORT, config.HOST);
  announceListening('bench-floor', { url: await app.getUrl() });
  return async () => {
    await app.close();
    await tracing.shutdown();
  };
});
