import 'reflect-metadata';
import { ApiEnv, loadConfig, parseProviderOffers, runService } from '@wrs/config';
import { createLogger } from '@wrs/observability';
import { createApiApp } from './api-app';
import { connectApiDependencies } from './api-dependencies';

void runService('api', async () => {
  const config = loadConfig(ApiEnv, process.env);
  const offers = parseProviderOffers(config.PROVIDERS_JSON);
  const deps = await connectApiDependencies(config);
  const logger = createLogger('api', config.LOG_LEVEL);
  const app = await createApiApp({ ...deps.module, offers }, deps.allowedOrigins, logger);
  await app.listen(config.PORT, config.HOST);
  logger.info({ url: await app.getUrl() }, 'listening');
  return async () => {
    await app.close();
    await deps.close();
  };
});
