import 'reflect-metadata';
import { ensureDevKeyPair } from '@wrs/auth';
import { loadConfig, runService, TokenEnv } from '@wrs/config';
import { ensureDevCredentialKeys } from '@wrs/credentials';
import {
  findContainerEngine,
  forgetRunningStack,
  LocalStack,
  missingDependencies,
  MissingDependenciesError,
  passThroughEnv,
  planProviders,
  recordRunningStack,
  StackEnv,
} from '@wrs/devstack';
import { DEV_KEYS_DIR, DIST_DIR } from './repo-root';

/** `npm start`: migrations and streams, then every service, behind one base URL. */
void runService('stack', async () => {
  const config = loadConfig(StackEnv, process.env);
  const keysDir = config.DEV_KEYS_DIR ?? DEV_KEYS_DIR;
  const missing = await missingDependencies({ NATS_URL: config.NATS_URL, DATABASE_URL: config.DATABASE_URL, REDIS_URL: config.REDIS_URL });
  if (missing.length > 0) {
    throw new MissingDependenciesError(missing);
  }
  const providers = planProviders(process.env, await findContainerEngine(process.env));
  const { publicKeyFile } = ensureDevKeyPair(keysDir);
  const stack = new LocalStack({
    distDir: DIST_DIR,
    natsUrl: config.NATS_URL,
    databaseUrl: config.DATABASE_URL,
    databaseSchema: config.DATABASE_SCHEMA,
    redisUrl: config.REDIS_URL,
    namespace: config.NAMESPACE,
    publicKeyFile,
    credentialKeys: ensureDevCredentialKeys(keysDir),
    gatewayPort: config.PORT,
    apiPort: config.API_PORT,
    relayPort: config.RELAY_PORT,
    // Every variable a service reads reaches it (the list comes from the config schemas); the
    // provider plan adds the engine it found, unless PROVIDERS_JSON was given.
    extraEnv: { ...providers.env, ...passThroughEnv(process.env) },
    startTimeoutMs: config.STACK_START_TIMEOUT_MS,
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
      forgetRunningStack(keysDir);
      void stack.stop().then(() => process.exit(1));
    });
  }
  // What the services check tokens against (the same schema as the services read: TokenEnv).
  const auth = loadConfig(TokenEnv, process.env);
  recordRunningStack(keysDir, {
    pid: process.pid,
    baseUrl: stack.baseUrl,
    databaseUrl: config.DATABASE_URL,
    databaseSchema: config.DATABASE_SCHEMA,
    namespace: config.NAMESPACE,
    authIssuer: auth.AUTH_ISSUER,
    authAudience: auth.AUTH_AUDIENCE,
  });
  console.log(`\nWorkload Run Service is up. Base URL: ${stack.baseUrl}`);
  providers.lines.forEach((line) => console.log(line));
  console.log('Mint a token with: npm run token -- --workspace demo');
  const ops = [...stack.processes.keys()].map((name) => `${name} http://${config.METRICS_HOST}:${stack.metricsPortOf(name)}`);
  console.log(`Operator ports (/metrics, /health/live, /health/ready): ${ops.join(', ')}\n`);
  return async () => {
    forgetRunningStack(keysDir);
    for (const child of stack.processes.values()) {
      child.removeAllListeners('exit');
    }
    await stack.stop();
  };
});
