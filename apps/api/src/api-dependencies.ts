import { Failpoint, type ApiEnv } from '@wrs/config';
import { readPublicKeks } from '@wrs/credentials';
import { connectHttpService, type HttpServiceConnections } from '@wrs/edge';
import { defaultWorkspaceLimits, EffectiveLimits, serviceLimits } from '@wrs/limits';
import { RateLimiter, RunCommandBus, RunEndings, RunEventStore } from '@wrs/messaging';
import { ProviderCredentials, RunQueries, Webhooks, Workspaces } from '@wrs/persistence';
import type { ApiInfrastructure } from './api-infrastructure.module';
import { buildInfo } from './meta/build-info';
import { IdempotencyCache } from './runs/idempotency-cache';

export interface ApiDependencies {
  readonly module: Omit<ApiInfrastructure, 'offers'>;
  readonly allowedOrigins: readonly string[];
  /** What readiness checks. */
  readonly connections: Pick<HttpServiceConnections, 'nc' | 'db' | 'redis'>;
  close(): Promise<void>;
}

/** Redis serves the idempotency fast path (optional) and sessions (a 503 while it is away). */
export async function connectApiDependencies(config: ApiEnv): Promise<ApiDependencies> {
  const publicKeks = config.CREDENTIALS_KEK_PUBLIC_KEYS
    ? readPublicKeks('CREDENTIALS_KEK_PUBLIC_KEYS', config.CREDENTIALS_KEK_PUBLIC_KEYS)
    : [];
  const { nc, js, jsm, names, db, redis, auth, revocations, close } = await connectHttpService(config, 'api', 10);
  const workspaces = new Workspaces(db);
  const endings = new RunEndings(nc, names);
  endings.start();
  return {
    module: {
      commands: new RunCommandBus(js, jsm, names),
      events: new RunEventStore(js, jsm, names),
      endings,
      queries: new RunQueries(db),
      workspaces,
      limits: new EffectiveLimits(workspaces, defaultWorkspaceLimits(config)),
      serviceLimits: serviceLimits(config),
      rateLimiter: new RateLimiter(redis, config.NAMESPACE),
      authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
      credentials: new ProviderCredentials(db),
      webhooks: new Webhooks(db),
      authenticator: auth.authenticator,
      sessions: auth.sessions,
      sessionEnds: revocations,
      fingerprints: auth.fingerprints,
      sessionTtlSeconds: config.SESSION_TTL_SECONDS,
      publicKeks,
      build: buildInfo(config.BUILD_COMMIT),
      cache: new IdempotencyCache(redis, config.NAMESPACE, config.IDEMPOTENCY_RETENTION_SECONDS * 1000),
      failpoint: new Failpoint(config.FAILPOINT),
    },
    allowedOrigins: auth.allowedOrigins,
    connections: { nc, db, redis },
    close: async () => {
      await endings.stop();
      await close();
    },
  };
}
