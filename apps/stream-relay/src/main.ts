import 'reflect-metadata';
import { loadConfig, RelayEnv, runService } from '@wrs/config';
import { serveHttpService, serviceEdgeOf } from '@wrs/edge';
import { createRelayApp } from './relay-app';
import { connectRelayDependencies } from './relay-dependencies';

void runService('stream-relay', async (lifecycle) => {
  const config = loadConfig(RelayEnv, process.env);
  return await serveHttpService('stream-relay', config, lifecycle, async (logger) => {
    const deps = await connectRelayDependencies(config);
    const app = await createRelayApp(deps.module, { allowedOrigins: deps.allowedOrigins, logger, edge: serviceEdgeOf(config) });
    return { app, connections: deps.connections, close: () => deps.close() };
  });
});
