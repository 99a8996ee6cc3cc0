import { GatewayEnv, loadConfig, runService } from '@wrs/config';
import { createGateway } from './gateway';

void runService('gateway', async () => {
  const config = loadConfig(GatewayEnv, process.env);
  const server = createGateway({
    upstreams: {
      api: config.API_UPSTREAM.split(',').map((u) => new URL(u)),
      relay: config.RELAY_UPSTREAM.split(',').map((u) => new URL(u)),
    },
  });
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  console.log(JSON.stringify({ level: 'info', service: 'gateway', msg: 'listening', port: config.PORT }));
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
});
