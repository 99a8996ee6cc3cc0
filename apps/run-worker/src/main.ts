import 'reflect-metadata';
import { loadConfig, parseProviderOffers, runService, WorkerEnv } from '@wrs/config';
import { readPrivateKeks } from '@wrs/credentials';
import { connectNats } from '@wrs/messaging';
import { openDatabase } from '@wrs/persistence';
import { createLogger } from '@wrs/observability';
import { startRunWorker } from './run-worker';

void runService('run-worker', async () => {
  const config = loadConfig(WorkerEnv, process.env);
  const offers = parseProviderOffers(config.PROVIDERS_JSON);
  const nc = await connectNats(config.NATS_URL, 'run-worker');
  const db = await openDatabase({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA });
  const logger = createLogger('run-worker', config.LOG_LEVEL);
  const log = (level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void => logger[level](fields, msg);
  const worker = await startRunWorker({
    nc,
    db,
    namespace: config.NAMESPACE,
    offers,
    reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
    idempotencyRetentionMs: config.IDEMPOTENCY_RETENTION_SECONDS * 1000,
    containerEngineSocket: config.CONTAINER_ENGINE_SOCKET,
    providerUnresponsiveMs: config.PROVIDER_UNRESPONSIVE_SECONDS * 1000,
    failpoint: config.FAILPOINT,
    privateKeks: config.CREDENTIALS_KEK_PRIVATE_KEYS
      ? readPrivateKeks('CREDENTIALS_KEK_PRIVATE_KEYS', config.CREDENTIALS_KEK_PRIVATE_KEYS)
      : new Map(),
    log,
  });
  log('info', 'started');
  return async () => {
    await worker.stop();
    await nc.drain();
    await db.destroy();
  };
});
