import { jetstreamManager } from '@nats-io/jetstream';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ApiEnv, DEFAULT_PROVIDER_OFFERS, loadConfig } from '@wrs/config';
import type { ProviderOffer } from '@wrs/domain';
import { connectNats, StreamNames } from '@wrs/messaging';
import { ContractClient, TEST_AUDIENCE, TEST_ISSUER, type IsolatedEnvironment } from '@wrs/testing';
import { API_PREFIX, createApiApp, type ApiAppSettings } from './api-app';
import { connectApiDependencies, type ApiDependencies } from './api-dependencies';

export interface InProcessApi {
  readonly app: NestExpressApplication;
  readonly deps: ApiDependencies;
  readonly client: ContractClient;
  readonly url: string;
  close(): Promise<void>;
}

/** The real api (real NATS, Postgres, Redis) in this process, listening on a real socket: for tests. */
export async function startApi(
  env: IsolatedEnvironment,
  publicKeyFile: string,
  overrides: Record<string, string> = {},
  offers: readonly ProviderOffer[] = DEFAULT_PROVIDER_OFFERS,
  settings: Pick<ApiAppSettings, 'logger'> = {},
): Promise<InProcessApi> {
  const config = loadConfig(ApiEnv, {
    NATS_URL: env.natsUrl,
    DATABASE_URL: env.databaseUrl,
    DATABASE_SCHEMA: env.schema,
    REDIS_URL: env.redisUrl,
    NAMESPACE: env.namespace,
    AUTH_PUBLIC_KEY_FILE: publicKeyFile,
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
    ...overrides,
  });
  const deps = await connectApiDependencies(config);
  const app = await createApiApp({ ...deps.module, offers }, { allowedOrigins: deps.allowedOrigins, ...settings });
  await app.listen(0, '127.0.0.1');
  const url = `${await app.getUrl()}/${API_PREFIX}`;
  return {
    app,
    deps,
    url,
    client: new ContractClient(url),
    close: async () => {
      await app.close();
      await deps.close();
    },
  };
}

/** How many runs JetStream holds events for, in a namespace (optionally one workspace). */
export async function countCreatedRuns(env: IsolatedEnvironment, workspaceId = '*'): Promise<number> {
  const nc = await connectNats(env.natsUrl, 'count');
  try {
    const names = new StreamNames(env.namespace);
    const info = await (
      await jetstreamManager(nc)
    ).streams.info(names.eventsStream, {
      subjects_filter: `${env.namespace}.evt.${workspaceId}.*`,
    });
    return Object.keys(info.state.subjects ?? {}).length;
  } finally {
    await nc.close();
  }
}
