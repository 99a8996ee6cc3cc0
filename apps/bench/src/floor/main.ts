import 'reflect-metadata';
import { HttpServiceEnv, loadConfig, runService } from '@wrs/config';
import { serviceEdgeOf } from '@wrs/edge';
import { announceListening, createLogger, startTracing } from '@wrs/observability';
import { createFloorApp } from './floor-app';

// The framework floor as a process of its own, started as serveHttpService starts the api (same
// config, tracing, logger and edge), without the api's dependencies, guards and operator port.
void runService('bench-floor', async () => {
  const config = loadConfig(HttpServiceEnv, process.env);
  const tracing = startTracing({
    service: 'bench-floor',
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    sampler: config.OTEL_TRACES_SAMPLER,
    samplerRatio: config.OTEL_TRACES_SAMPLER_ARG,
  });
  const logger = createLogger('bench-floor', config.LOG_LEVEL);
  const app = await createFloorApp(logger, serviceEdgeOf(config));
  await app.listen(config.PORT, config.HOST);
  announceListening('bench-floor', { url: await app.getUrl() });
  return async () => {
    await app.close();
    await tracing.shutdown();
  };
});
