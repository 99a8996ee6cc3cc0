import type { RelayEnv } from '@wrs/config';
import { connectHttpService, type HttpServiceConnections } from '@wrs/edge';
import { defaultWorkspaceLimits, EffectiveLimits } from '@wrs/limits';
import { RateLimiter } from '@wrs/messaging';
import { RunQueries, Workspaces } from '@wrs/persistence';
import { CredentialWatch } from './credential-watch';
import { RunEventFeed } from './feed/run-event-feed';
import { RunEventStreams } from './feed/run-event-streams';
import { StreamLeases } from './feed/stream-leases';
import type { RelayModuleOptions } from './relay.module';

export interface RelayDependencies {
  readonly module: RelayModuleOptions;
  /** The relay's feed of run events (tests make it forget what it saw). */
  readonly feed: RunEventFeed;
  readonly allowedOrigins: readonly string[];
  /** What readiness checks. */
  readonly connections: Pick<HttpServiceConnections, 'nc' | 'db' | 'redis'>;
  close(): Promise<void>;
}

/**
 * Redis holds browser sessions (bearer streams work without it, cookie streams get a 503); Postgres
 * only serves the `reset` event's current state and the workspace's limits: a small pool.
 */
export async function connectRelayDependencies(config: RelayEnv): Promise<RelayDependencies> {
  const { nc, js, jsm, names, db, redis, auth, revocations, close } = await connectHttpService(config, 'stream-relay', 4);
  const feed = new RunEventFeed(js, jsm, names, nc);
  await feed.start();
  const credentialWatch = new CredentialWatch(revocations);
  const limits = new EffectiveLimits(new Workspaces(db), defaultWorkspaceLimits(config));
  // A lease lasts three heartbeats and is renewed every one: a relay that dies frees its places soon.
  const leases = new StreamLeases(redis, config.NAMESPACE, config.SSE_HEARTBEAT_MS * 3, config.SSE_HEARTBEAT_MS);
  return {
    feed,
    module: {
      streams: new RunEventStreams(feed, new RunQueries(db), leases, limits),
      limits,
      rateLimiter: new RateLimiter(redis, config.NAMESPACE),
      authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
      authenticator: auth.authenticator,
      credentialWatch,
      relay: {
        heartbeatMs: config.SSE_HEARTBEAT_MS,
        retryMs: 1000,
        maxDurationMs: config.SSE_MAX_DURATION_SECONDS * 1000,
        maxBufferedBytes: config.SSE_MAX_BUFFERED_BYTES,
        drainTimeoutMs: config.SSE_DRAIN_TIMEOUT_MS,
      },
    },
    allowedOrigins: auth.allowedOrigins,
    connections: { nc, db, redis },
    close: async () => {
      credentialWatch.close();
      await feed.close();
      await close();
    },
  };
}
