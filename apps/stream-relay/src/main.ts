import 'reflect-metadata';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { verifierFromKeyFile } from '@wrs/auth';
import { loadConfig, RelayEnv, runService } from '@wrs/config';
import { connectNats, ensureStreams, RunEventFeed, StreamNames } from '@wrs/messaging';
import { createRelayApp } from './relay-app';

void runService('stream-relay', async () => {
  const config = loadConfig(RelayEnv, process.env);
  const verifier = verifierFromKeyFile({
    publicKeyFile: config.AUTH_PUBLIC_KEY_FILE,
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
  });
  const nc = await connectNats(config.NATS_URL, 'stream-relay');
  const names = new StreamNames(config.NAMESPACE);
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, names, { idempotencyRetentionMs: config.IDEMPOTENCY_RETENTION_SECONDS * 1000 });
  const app = await createRelayApp({
    feed: new RunEventFeed(jetstream(nc), jsm, names),
    verifier,
    relay: { heartbeatMs: config.SSE_HEARTBEAT_MS, retryMs: 1000 },
  });
  await app.listen(config.PORT, config.HOST);
  console.log(JSON.stringify({ level: 'info', service: 'stream-relay', msg: 'listening', url: await app.getUrl() }));
  return async () => {
    await app.close();
    await nc.drain();
  };
});
