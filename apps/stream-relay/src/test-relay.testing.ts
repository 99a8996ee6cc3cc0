import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfig, RelayEnv } from '@wrs/config';
import { TEST_AUDIENCE, TEST_ISSUER, type IsolatedEnvironment } from '@wrs/testing';
import { createRelayApp, type RelayAppSettings } from './relay-app';
import { connectRelayDependencies, type RelayDependencies } from './relay-dependencies';

/** A relay on loopback for a test, and how to stop it. */
export interface TestRelay {
  readonly app: NestExpressApplication;
  readonly deps: RelayDependencies;
  /** The relay's API base URL, `http://127.0.0.1:<port>/api/v1`. */
  readonly base: string;
  close(): Promise<void>;
}

/**
 * Starts a relay on the test's isolated NATS, Postgres and Redis, trusting tokens signed with the
 * key in `publicKeyFile`; `overrides` set any other RelayEnv variable (as strings, as in the environment).
 */
export async function startTestRelay(
  env: IsolatedEnvironment,
  publicKeyFile: string,
  overrides: Record<string, string> = {},
  settings: RelayAppSettings = {},
): Promise<TestRelay> {
  const deps = await connectRelayDependencies(
    loadConfig(RelayEnv, {
      NATS_URL: env.natsUrl,
      REDIS_URL: env.redisUrl,
      DATABASE_URL: env.databaseUrl,
      DATABASE_SCHEMA: env.schema,
      NAMESPACE: env.namespace,
      AUTH_PUBLIC_KEY_FILE: publicKeyFile,
      AUTH_ISSUER: TEST_ISSUER,
      AUTH_AUDIENCE: TEST_AUDIENCE,
      ...overrides,
    }),
  );
  const app = await createRelayApp(deps.module, settings);
  await app.listen(0, '127.0.0.1');
  return {
    app,
    deps,
    base: `${await app.getUrl()}/api/v1`,
    close: async () => {
      await app.close();
      await deps.close();
    },
  };
}
