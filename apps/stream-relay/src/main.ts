import 'reflect-metadata';
import { loadConfig, RelayEnv, runService } from '@wrs/config';
import { createLogger } from '@wrs/observability';
import { createRelayApp } from './relay-app';
import { connectRelayDependencies } from './relay-dependencies';

void runService('stream-relay', async () => {
  const config = loadConfig(RelayEnv, process.env);
  const deps = await connectRelayDependencies(config);
  const logger = createLogger('stream-relay', config.LOG_LEVEL);
  const app = await createRelayApp(deps.module, deps.allowedOrigins, logger);
  await app.listen(config.PORT, config.HOST);
  logger.info({ url: await app.getUrl() }, 'listening');
  return async () => {
    await app.close();
    await deps.close();
  };
});
