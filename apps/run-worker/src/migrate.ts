import 'reflect-metadata';
import { jetstreamManager } from '@nats-io/jetstream';
import { CommonEnv, loadConfig, runService, waitAtStart } from '@wrs/config';
import { connectNats, ensureStreams, streamSettingsOf, StreamNames } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';

/** The one-shot migration step: database schema and JetStream streams. Safe to run again. */
void runService('migrate', async () => {
  const config = loadConfig(CommonEnv, process.env);
  // Postgres and NATS may still be starting (Compose): wait for each up to STARTUP_WAIT_SECONDS.
  const applied = await waitAtStart('Postgres', config.STARTUP_WAIT_SECONDS, () =>
    migrate({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA }),
  );
  const nc = await waitAtStart('NATS', config.STARTUP_WAIT_SECONDS, () => connectNats(config.NATS_URL, 'migrate'));
  await ensureStreams(await jetstreamManager(nc), new StreamNames(config.NAMESPACE), streamSettingsOf(config));
  await nc.close();
  console.log(JSON.stringify({ level: 'info', service: 'migrate', msg: 'done', applied }));
  process.exit(0);
});
