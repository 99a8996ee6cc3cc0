import 'reflect-metadata';
import { ensureDevKeyPair } from '@wrs/auth';
import { loadConfig, runService } from '@wrs/config';
import { ensureDevCredentialKeys } from '@wrs/credentials';
import { LocalStack, StackEnv } from '@wrs/devstack';
import { DEV_KEYS_DIR, DIST_DIR } from './repo-root';

/** `npm start`: migrations and streams, then every service, behind one base URL. */
void runService('stack', async () => {
  const config = loadConfig(StackEnv, process.env);
  const { publicKeyFile } = ensureDevKeyPair(config.DEV_KEYS_DIR ?? DEV_KEYS_DIR);
  const stack = new LocalStack({
    distDir: DIST_DIR,
    natsUrl: config.NATS_URL,
    databaseUrl: config.DATABASE_URL,
    databaseSchema: config.DATABASE_SCHEMA,
    redisUrl: config.REDIS_URL,
    namespace: config.NAMESPACE,
    publicKeyFile,
    credentialKeys: ensureDevCredentialKeys(config.DEV_KEYS_DIR ?? DEV_KEYS_DIR),
    gatewayPort: config.PORT,
    apiPort: config.API_PORT,
    relayPort: config.RELAY_PORT,
    extraEnv: {
      LOG_LEVEL: config.LOG_LEVEL,
      ...(config.OTEL_EXPORTER_OTLP_ENDPOINT ? { OTEL_EXPORTER_OTLP_ENDPOINT: config.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
    },
  });
  try {
    await stack.start();
  } catch (error) {
    await stack.stop();
    throw error;
  }
  for (const [name, child] of stack.processes) {
    child.once('exit', (code, signal) => {
      console.error(`stack: ${name} exited (${signal ?? `code ${code}`}); stopping the stack`);
      void stack.stop().then(() => process.exit(1));
    });
  }
  console.log(`\nWorkload Run Service is up. Base URL: ${stack.baseUrl}`);
  console.log('Mint a token with: npm run token -- --workspace demo');
  const ops = [...stack.processes.keys()].map((name) => `${name} http://127.0.0.1:${stack.metricsPortOf(name)}`);
  console.log(`Operator ports (/metrics, /health/live, /health/ready): ${ops.join(', ')}\n`);
  return async () => {
    for (const child of stack.processes.values()) {
      child.removeAllListeners('exit');
    }
    await stack.stop();
  };
});
