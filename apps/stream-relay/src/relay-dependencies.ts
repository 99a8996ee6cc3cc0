import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createAuthSetup } from '@wrs/auth';
import type { RelayEnv } from '@wrs/config';
import { defaultWorkspaceLimits, EffectiveLimits } from '@wrs/limits';
import { connectNats, connectRedis, ensureStreams, RateLimiter, RunEventFeed, StreamLeases, StreamNames, TokenRevocations } from '@wrs/messaging';
import { openDatabase, RunQueries, Workspaces } from '@wrs/persistence';
import type { RelayModuleOptions } from './relay.module';

export interface RelayDependencies {
  readonly module: RelayModuleOptions;
  readonly allowedOrigins: readonly string[];
  close(): Promise<void>;
}

export async function connectRelayDependencies(config: RelayEnv): Promise<RelayDependencies> {
  const nc = await connectNats(config.NATS_URL, 'stream-relay');
  const names = new StreamNames(config.NAMESPACE);
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await ensureStreams(jsm, names, { idempotencyRetentionMs: config.IDEMPOTENCY_RETENTION_SECONDS * 1000 });
  // Redis holds browser sessions: bearer streams work without it, cookie streams get a 503.
  const redis = await connectRedis(config.REDIS_URL, (error) =>
    console.error(JSON.stringify({ level: 'warn', service: 'stream-relay', msg: 'Redis unreachable at start', error: String(error) })),
  );
  // Postgres for the `reset` event's current state and the workspace's limits: a small pool.
  const db = await openDatabase({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA, poolSize: 4 });
  const revocations = new TokenRevocations(js, jsm, names);
  await revocations.start();
  const auth = await createAuthSetup(config, redis, revocations);
  return {
    module: {
      feed: new RunEventFeed(js, jsm, names),
      queries: new RunQueries(db),
      limits: new EffectiveLimits(new Workspaces(db), defaultWorkspaceLimits(config)),
      rateLimiter: new RateLimiter(redis, config.NAMESPACE),
      leases: new StreamLeases(redis, config.NAMESPACE, config.SSE_HEARTBEAT_MS * 3),
      authenticator: auth.authenticator,
      relay: {
        heartbeatMs: config.SSE_HEARTBEAT_MS,
        retryMs: 1000,
        maxDurationMs: config.SSE_MAX_DURATION_SECONDS * 1000,
        maxBufferedBytes: config.SSE_MAX_BUFFERED_BYTES,
        drainTimeoutMs: config.SSE_DRAIN_TIMEOUT_MS,
      },
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
