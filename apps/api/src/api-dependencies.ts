import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { verifierFromKeyFile } from '@wrs/auth';
import type { ApiEnv } from '@wrs/config';
import { connectNats, ensureStreams, RunCommandBus, StreamNames } from '@wrs/messaging';
import { openDatabase, RunQueries, Workspaces } from '@wrs/persistence';
import { Redis } from 'ioredis';
import type { ApiModuleOptions } from './api.module';
import { buildInfo } from './meta/build-info';
import { Failpoint } from './runs/failpoint';
import { IdempotencyCache } from './runs/idempotency-cache';

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
  await ensureStreams(jsm, names, { idempotencyRetentionMs: config.IDEMPOTENCY_RETENTION_SECONDS * 1000 });
  const db = await openDatabase({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA }).catch(
    async (error: unknown) => {
      await nc.close();
      throw error;
    },
  );
  // Redis is a fast path only (see IdempotencyCache): the API starts, and stays up, without it.
  const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  await redis.connect().catch((error: unknown) => {
    console.error(JSON.stringify({ level: 'warn', service: 'api', msg: 'Redis unreachable at start; idempotency fast path off until it is back', error: String(error) }));
  });
  return {
    module: {
      commands: new RunCommandBus(jetstream(nc), jsm, names),
      queries: new RunQueries(db),
      workspaces: new Workspaces(db),
      verifier,
      build: buildInfo(config.BUILD_COMMIT),
      cache: new IdempotencyCache(redis, config.NAMESPACE, config.IDEMPOTENCY_RETENTION_SECONDS * 1000),
      failpoint: new Failpoint(config.FAILPOINT),
    },
    close: async () => {
      await nc.drain();
      await db.destroy();
      redis.disconnect();
    },
  };
}
