import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createAuthSetup } from '@wrs/auth';
import type { RelayEnv } from '@wrs/config';
import { connectNats, connectRedis, ensureStreams, RunEventFeed, StreamNames, TokenRevocations } from '@wrs/messaging';
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
  const revocations = new TokenRevocations(js, jsm, names);
  await revocations.start();
  const auth = await createAuthSetup(config, redis, revocations);
  return {
    module: {
      feed: new RunEventFeed(js, jsm, names),
      authenticator: auth.authenticator,
      relay: { heartbeatMs: config.SSE_HEARTBEAT_MS, retryMs: 1000 },
    },
    allowedOrigins: auth.allowedOrigins,
    close: async () => {
      auth.stop();
      await revocations.stop();
      await nc.drain();
      redis.disconnect();
    },
  };
}
