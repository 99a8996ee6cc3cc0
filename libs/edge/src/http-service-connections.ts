import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { checkVerificationKeys, createAuthSetup, type AuthSetup } from '@wrs/auth';
import { waitAtStart, type HttpServiceEnv } from '@wrs/config';
import { connectNats, connectRedis, ensureStreams, streamSettingsOf, StreamNames, TokenRevocations } from '@wrs/messaging';
import { createLogger, storedKeysAsBearer } from '@wrs/observability';
import { openCurrentDatabase } from '@wrs/persistence';
import { requestIdOf } from '@wrs/problem';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';

/** What both HTTP services (api and stream-relay) connect to at start, in one place. */
export interface HttpServiceConnections {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly names: StreamNames;
  readonly db: DataSource;
  readonly redis: Redis;
  readonly auth: AuthSetup;
  /** Revoked tokens and ended sessions, followed from the revocation stream (the relay ends streams by it). */
  readonly revocations: TokenRevocations;
  close(): Promise<void>;
}

/**
 * Connects NATS, Postgres (both waited for up to STARTUP_WAIT_SECONDS), Redis (optional: its users answer
 * 503 while it is away), token revocations and authentication. A dependency that is down fails the start
 * with one clear line.
 */
export async function connectHttpService(config: HttpServiceEnv, service: string, dbPoolSize: number): Promise<HttpServiceConnections> {
  // A configuration mistake is said at once, not after the wait for NATS and Postgres.
  checkVerificationKeys({ publicKeyFiles: config.AUTH_PUBLIC_KEY_FILE, jwksUrl: config.AUTH_JWKS_URL });
  const nc = await waitAtStart('NATS', config.STARTUP_WAIT_SECONDS, () => connectNats(config.NATS_URL, service));
  const names = new StreamNames(config.NAMESPACE);
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const streamSettings = streamSettingsOf(config);
  await ensureStreams(jsm, names, streamSettings);
  const db = await openCurrentDatabase(
    { url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA, poolSize: dbPoolSize },
    config.STARTUP_WAIT_SECONDS,
  ).catch(async (error: unknown) => {
    await nc.close();
    throw error;
  });
  const redis = await connectRedis(config.REDIS_URL, (error) =>
    console.error(JSON.stringify({ level: 'warn', service, msg: 'Redis unreachable at start', error: String(error) })),
  );
  const revocations = new TokenRevocations(js, jsm, names, streamSettings.revocationRetentionMs);
  await revocations.start();
  const logger = createLogger(service, config.LOG_LEVEL);
  const auth = await createAuthSetup(config, redis, revocations, (req) => {
    // Which request, never the value: the operator finds the caller by the request id.
    storedKeysAsBearer.inc();
    logger.warn({ msg: 'a stored provider credential was sent as a bearer token (answered token_malformed)', requestId: requestIdOf(req) });
  });
  return {
    nc,
    js,
    jsm,
    names,
    db,
    redis,
    auth,
    revocations,
    close: async () => {
      auth.stop();
      await revocations.stop();
      await nc.drain();
      await db.destroy();
      redis.disconnect();
    },
  };
}
