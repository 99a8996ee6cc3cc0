import 'reflect-metadata';
import { jetstreamManager } from '@nats-io/jetstream';
import { CommonEnv, loadConfig, runService } from '@wrs/config';
import { connectNats, ensureStreams, streamSettingsOf, StreamNames } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';

/** The one-shot migration step: database schema and JetStream streams. Safe to run again. */
void runService('migrate', async () => {
  const config = loadConfig(CommonEnv, process.env);
  const applied = await migrate({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA });
  const nc = await connectNats(config.NATS_URL, 'migrate');
  await ensureStreams(await jetstreamManager(nc), new StreamNames(config.NAMESPACE), streamSettingsOf(config));
  await nc.close();
  console.log(JSON.stringify({ level: 'info', service: 'migrate', msg: 'done', applied }));
  process.exit(0);
});
