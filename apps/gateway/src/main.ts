import { GatewayEnv, loadConfig, runService } from '@wrs/config';
import { startOpsServer } from '@wrs/observability';
import { createGateway } from './gateway';

void runService('gateway', async (lifecycle) => {
  const config = loadConfig(GatewayEnv, process.env);
  lifecycle.drainDelayMs = config.SHUTDOWN_DELAY_MS;
  const server = createGateway({
    upstreams: {
      api: config.API_UPSTREAM.split(',').map((u) => new URL(u)),
      relay: config.RELAY_UPSTREAM.split(',').map((u) => new URL(u)),
    },
  });
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  // Ready unless draining: it holds no connection of its own, and it already rides out upstream restarts.
  const ops = await startOpsServer({
    service: 'gateway',
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    checks: [],
    draining: () => lifecycle.draining,
    nestLogger: false,
  });
  console.log(JSON.stringify({ level: 'info', service: 'gateway', msg: 'listening', port: config.PORT, opsUrl: ops.url }));
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ops.close();
  };
});
