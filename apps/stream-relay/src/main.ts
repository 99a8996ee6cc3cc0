import 'reflect-metadata';
import { loadConfig, RelayEnv, runService } from '@wrs/config';
import { createRelayApp } from './relay-app';
import { connectRelayDependencies } from './relay-dependencies';

void runService('stream-relay', async () => {
  const config = loadConfig(RelayEnv, process.env);
  const deps = await connectRelayDependencies(config);
  const app = await createRelayApp(deps.module, deps.allowedOrigins);
  await app.listen(config.PORT, config.HOST);
  console.log(JSON.stringify({ level: 'info', service: 'stream-relay', msg: 'listening', url: await app.getUrl() }));
  return async () => {
    await app.close();
    await deps.close();
  };
});
