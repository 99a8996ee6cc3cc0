import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createAuthSetup } from '@wrs/auth';
import type { ApiEnv } from '@wrs/config';
import { readPublicKeks } from '@wrs/credentials';
import { defaultWorkspaceLimits, EffectiveLimits, serviceLimits } from '@wrs/limits';
import { connectNats, connectRedis, ensureStreams, RateLimiter, RunCommandBus, StreamNames, TokenRevocations } from '@wrs/messaging';
import { openDatabase, ProviderCredentials, RunQueries, Workspaces } from '@wrs/persistence';
import type { ApiModuleOptions } from './api.module';
import { buildInfo } from './meta/build-info';
import { Failpoint } from './runs/failpoint';
import { IdempotencyCache } from './runs/idempotency-cache';

export interface ApiDependencies {
  readonly module: Omit<ApiModuleOptions, 'offers'>;
  readonly allowedOrigins: readonly string[];
  close(): Promise<void>;
}

export async function connectApiDependencies(config: ApiEnv): Promise<ApiDependencies> {
  const nc = await connectNats(config.NATS_URL, 'api');
  const names = new StreamNames(config.NAMESPACE);
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await ensureStreams(jsm, names, { idempotencyRetentionMs: config.IDEMPOTENCY_RETENTION_SECONDS * 1000 });
  const db = await openDatabase({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA }).catch(
    async (error: unknown) => {
      await nc.close();
      throw error;
    },
  );
  // Redis serves the idempotency fast path (optional) and sessions (a 503 while it is away): the api
  // starts, and stays up, without it.
  const redis = await connectRedis(config.REDIS_URL, (error) =>
    console.error(JSON.stringify({ level: 'warn', service: 'api', msg: 'Redis unreachable at start', error: String(error) })),
  );
  const revocations = new TokenRevocations(js, jsm, names);
  await revocations.start();
  const auth = await createAuthSetup(config, redis, revocations);
  const workspaces = new Workspaces(db);
  return {
    module: {
      commands: new RunCommandBus(js, jsm, names),
      queries: new RunQueries(db),
      workspaces,
      limits: new EffectiveLimits(workspaces, defaultWorkspaceLimits(config)),
      serviceLimits: serviceLimits(config),
      rateLimiter: new RateLimiter(redis, config.NAMESPACE),
      credentials: new ProviderCredentials(db),
      authenticator: auth.authenticator,
      sessions: auth.sessions,
      fingerprints: auth.fingerprints,
      sessionTtlSeconds: config.SESSION_TTL_SECONDS,
      publicKeks: config.CREDENTIALS_KEK_PUBLIC_KEYS
        ? readPublicKeks('CREDENTIALS_KEK_PUBLIC_KEYS', config.CREDENTIALS_KEK_PUBLIC_KEYS)
        : [],
      build: buildInfo(config.BUILD_COMMIT),
      cache: new IdempotencyCache(redis, config.NAMESPACE, config.IDEMPOTENCY_RETENTION_SECONDS * 1000),
      failpoint: new Failpoint(config.FAILPOINT),
    },
    allowedOrigins: auth.allowedOrigins,
    close: async () => {
      auth.stop();
      await revocations.stop();
      await nc.drain();
      await db.destroy();
      redis.disconnect();
    },
  };
}
