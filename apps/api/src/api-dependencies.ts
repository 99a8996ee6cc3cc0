import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { verifierFromKeyFile } from '@wrs/auth';
import type { ApiEnv } from '@wrs/config';
import { connectNats, ensureStreams, RunCommandBus, StreamNames } from '@wrs/messaging';
import { openDatabase, RunQueries, Workspaces } from '@wrs/persistence';
import type { ApiModuleOptions } from './api.module';
import { buildInfo } from './meta/build-info';

export interface ApiDependencies {
  readonly module: Omit<ApiModuleOptions, 'offers'>;
  close(): Promise<void>;
}

export async function connectApiDependencies(config: ApiEnv): Promise<ApiDependencies> {
  const verifier = verifierFromKeyFile({
    publicKeyFile: config.AUTH_PUBLIC_KEY_FILE,
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
  });
  const nc = await connectNats(config.NATS_URL, 'api');
  const names = new StreamNames(config.NAMESPACE);
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, names);
  const db = await openDatabase({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA }).catch(
    async (error: unknown) => {
      await nc.close();
      throw error;
    },
  );
  return {
    module: {
      commands: new RunCommandBus(jetstream(nc), jsm, names),
      queries: new RunQueries(db),
      workspaces: new Workspaces(db),
      verifier,
      build: buildInfo(config.BUILD_COMMIT),
    },
    close: async () => {
      await nc.drain();
      await db.destroy();
    },
  };
}
