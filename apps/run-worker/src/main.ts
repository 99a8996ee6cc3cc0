import 'reflect-metadata';
import { loadConfig, parseProviderOffers, runService, waitAtStart, WorkerEnv, workerDatabasePoolSize } from '@wrs/config';
import { readPrivateKeks } from '@wrs/credentials';
import { connectNats, revocationRetentionMs } from '@wrs/messaging';
import { openCurrentDatabase } from '@wrs/persistence';
import {
  announceListening,
  createLogger,
  NestPinoLogger,
  natsCheck,
  postgresCheck,
  startOpsServer,
  startTracing,
} from '@wrs/observability';
import { startRunWorker } from './run-worker';

void runService('run-worker', async (lifecycle) => {
  const config = loadConfig(WorkerEnv, process.env);
  lifecycle.drainDelayMs = config.SHUTDOWN_DELAY_MS;
  const tracing = startTracing({
    service: 'run-worker',
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    sampler: config.OTEL_TRACES_SAMPLER,
    samplerRatio: config.OTEL_TRACES_SAMPLER_ARG,
  });
  const offers = parseProviderOffers(config.PROVIDERS_JSON);
  // Read before any wait: a missing key file is a configuration mistake to say at once.
  const privateKeks = config.CREDENTIALS_KEK_PRIVATE_KEYS
    ? readPrivateKeks('CREDENTIALS_KEK_PRIVATE_KEYS', config.CREDENTIALS_KEK_PRIVATE_KEYS)
    : new Map();
  // Both waited for up to STARTUP_WAIT_SECONDS: under Compose, NATS, Postgres and migrate start alongside.
  const nc = await waitAtStart('NATS', config.STARTUP_WAIT_SECONDS, () => connectNats(config.NATS_URL, 'run-worker'));
  const db = await openCurrentDatabase(
    { url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA, poolSize: workerDatabasePoolSize(config.WEBHOOK_SENDERS) },
    config.STARTUP_WAIT_SECONDS,
  );
  const logger = createLogger('run-worker', config.LOG_LEVEL);
  const log = (level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void => logger[level](fields, msg);
  const worker = await startRunWorker({
    nc,
    db,
    namespace: config.NAMESPACE,
    offers,
    reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
    reconcileMaxObserveIntervalMs: config.RECONCILE_MAX_INTERVAL_MS,
    ackWaitMs: config.JETSTREAM_ACK_WAIT_MS,
    workloadCleanup: { intervalMs: config.WORKLOAD_CLEANUP_INTERVAL_MS, graceMs: config.WORKLOAD_ORPHAN_GRACE_SECONDS * 1000 },
    idempotencyRetentionMs: config.IDEMPOTENCY_RETENTION_SECONDS * 1000,
    revocationRetentionMs: revocationRetentionMs(config.AUTH_TOKEN_MAX_TTL_SECONDS),
    streamReplicas: config.JETSTREAM_REPLICAS,
    containerEngineSocket: config.CONTAINER_ENGINE_SOCKET,
    kubernetesAllowedPrivateRanges: config.KUBERNETES_ALLOWED_PRIVATE_RANGES,
    providerUnresponsiveMs: config.PROVIDER_UNRESPONSIVE_SECONDS * 1000,
    providerProbeIntervalMs: config.PROVIDER_PROBE_INTERVAL_MS,
    failpoint: config.FAILPOINT,
    webhooks: {
      http: {
        allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: config.WEBHOOK_MAX_RESPONSE_BYTES,
      },
      schedule: {
        baseMs: config.WEBHOOK_RETRY_BASE_MS,
        maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS,
        maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      },
      senders: config.WEBHOOK_SENDERS,
    },
    privateKeks,
    log,
  });
  // The worker serves no HTTP: the operator port is its only one.
  const ops = await startOpsServer({
    service: 'run-worker',
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    checks: [natsCheck(nc), postgresCheck(db)],
    draining: () => lifecycle.draining,
    nestLogger: new NestPinoLogger(logger),
  });
  announceListening('run-worker', { opsUrl: ops.url });
  return async () => {
    await worker.stop();
    await nc.drain();
    await db.destroy();
    await tracing.shutdown();
    await ops.close();
  };
});
