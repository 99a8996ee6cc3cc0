import { GatewayEnv, loadConfig, runService } from '@wrs/config';
import { announceListening, createLogger, edgeReporter, startOpsServer } from '@wrs/observability';
import { closeServer } from '@wrs/problem';
import { createGateway } from './gateway';

void runService('gateway', async (lifecycle) => {
  const config = loadConfig(GatewayEnv, process.env);
  lifecycle.drainDelayMs = config.SHUTDOWN_DELAY_MS;
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const server = createGateway({
    onEdgeAnswer: edgeReporter(logger),
    upstreams: {
      api: config.API_UPSTREAM.split(',').map((u) => new URL(u)),
      relay: config.RELAY_UPSTREAM.split(',').map((u) => new URL(u)),
    },
    limits: {
      headersTimeoutMs: config.GATEWAY_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.GATEWAY_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: config.GATEWAY_IDLE_TIMEOUT_MS,
      upstreamIdleTimeoutMs: config.GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS,
      maxConnections: config.GATEWAY_MAX_CONNECTIONS,
      restartGraceMs: config.GATEWAY_RESTART_GRACE_MS,
    },
  });
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  // Ready unless draining: it holds no connection of its own and already retries through upstream restarts.
  const ops = await startOpsServer({
    service: 'gateway',
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    checks: [],
    draining: () => lifecycle.draining,
    nestLogger: false,
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  announceListening('gateway', { url: `http://${config.HOST}:${port}`, opsUrl: ops.url });
  return async () => {
    await closeServer(server);
    await ops.close();
  };
});
