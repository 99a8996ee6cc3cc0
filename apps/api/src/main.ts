import 'reflect-metadata';
import { ApiEnv, loadConfig, parseProviderOffers, runService } from '@wrs/config';
import { createApiApp } from './api-app';
import { connectApiDependencies } from './api-dependencies';

void runService('api', async () => {
  const config = loadConfig(ApiEnv, process.env);
  const offers = parseProviderOffers(config.PROVIDERS_JSON);
  const deps = await connectApiDependencies(config);
  const app = await createApiApp({ ...deps.module, offers }, deps.allowedOrigins);
  await app.listen(config.PORT, config.HOST);
  const url = await app.getUrl();
  console.log(JSON.stringify({ level: 'info', service: 'api', msg: 'listening', url }));
  return async () => {
    await app.close();
    await deps.close();
  };
});
