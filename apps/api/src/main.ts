import 'reflect-metadata';
import { join } from 'node:path';
import { ApiEnv, loadConfig, parseProviderOffers, runService } from '@wrs/config';
import { serveHttpService, serviceEdgeOf } from '@wrs/edge';
import { createApiApp } from './api-app';
import { connectApiDependencies } from './api-dependencies';
import { consoleMount } from './console/console-static';

void runService('api', async (lifecycle) => {
  const config = loadConfig(ApiEnv, process.env);
  const offers = parseProviderOffers(config.PROVIDERS_JSON);
  return await serveHttpService('api', config, lifecycle, async (logger) => {
    const deps = await connectApiDependencies(config);
    const app = await createApiApp(
      { ...deps.module, offers },
      {
        allowedOrigins: deps.allowedOrigins,
        logger,
        edge: serviceEdgeOf(config),
        // The web console's built files (dist/apps/console), on the API's origin so its session cookie works.
        console: consoleMount(join(__dirname, '..', '..', 'console')),
      },
    );
    return { app, connections: deps.connections, close: () => deps.close() };
  });
});
