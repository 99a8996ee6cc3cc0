import 'reflect-metadata';
import { join } from 'node:path';
import { ensureDevKeyPair } from '@wrs/auth';
import { ConfigError, loadConfig, runService, TokenEnv } from '@wrs/config';
import { ensureDevCredentialKeys } from '@wrs/credentials';
import {
  describeMissing,
  type EngineCandidate,
  devDependencyImages,
  findContainerEngine,
  forgetRunningStack,
  LocalStack,
  MissingDependenciesError,
  passThroughEnv,
  planProviders,
  portInUse,
  readRunningStack,
  recordRunningStack,
  stackBuildCommit,
  StackEnv,
  startDevDependencies,
  unreachableDependencies,
} from '@wrs/devstack';
import { DEV_KEYS_DIR, DIST_DIR, REPO_ROOT } from './repo-root';

/** `npm start`: migrations and streams, then every service, behind one base URL. */
void runService('stack', async () => {
  const config = loadConfig(StackEnv, process.env);
  const keysDir = config.DEV_KEYS_DIR ?? DEV_KEYS_DIR;
  await refuseTakenPort(config.PORT, keysDir);
  const engine = await findContainerEngine(process.env);
  const devContainers = await ensureDependencies(config, engine.found);
  const providers = planProviders(process.env, engine);
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
    // provider plan adds the engine it found, unless PROVIDERS_JSON was given; GET /version names
    // the checkout's commit unless BUILD_COMMIT was given.
    extraEnv: { ...providers.env, ...buildCommitEnv(), ...passThroughEnv(process.env) },
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
  if (devContainers.length > 0) {
    console.log(`These containers stay running when the stack stops ${leftRunning(devContainers)}`);
  }
  console.log('Mint a token with: npm run token -- --workspace demo');
  const ops = [...stack.processes.keys()].map((name) => `${name} http://${config.METRICS_HOST}:${stack.metricsPortOf(name)}`);
  console.log(`Operator ports (/metrics, /health/live, /health/ready): ${ops.join(', ')}\n`);
  return async () => {
    forgetRunningStack(keysDir);
    for (const child of stack.processes.values()) {
      child.removeAllListeners('exit');
    }
    await stack.stop();
    if (devContainers.length > 0) {
      console.log(`stack: stopped; left running ${leftRunning(devContainers)}`);
    }
  };
});

/** BUILD_COMMIT: the caller's, else the checkout's HEAD; nothing without git or outside a checkout. */
function buildCommitEnv(): Record<string, string> {
  const commit = stackBuildCommit(REPO_ROOT, process.env);
  return commit ? { BUILD_COMMIT: commit } : {};
}

/** The dependency containers outlive the stack: they hold its data, and the next start reuses them. */
function leftRunning(containers: readonly string[]): string {
  return `(they hold the development data): ${containers.join(', ')}; \`docker rm -fv ${containers.join(' ')}\` removes them`;
}

/**
 * NATS, Postgres and Redis where the configuration says. Missing ones are started as containers when an
 * engine answers (their names are returned: they outlive the stack); without one, the error names each
 * with the command that starts it.
 */
async function ensureDependencies(config: StackEnv, engine: EngineCandidate | undefined): Promise<readonly string[]> {
  const unreachable = await unreachableDependencies({
    NATS_URL: config.NATS_URL,
    DATABASE_URL: config.DATABASE_URL,
    REDIS_URL: config.REDIS_URL,
  });
  if (unreachable.length === 0) {
    return [];
  }
  // One definition of the images: docker/compose.yaml's defaults, or the WRS_IMAGE_* it reads too.
  const images = devDependencyImages(join(REPO_ROOT, 'docker', 'compose.yaml'), process.env);
  if (!engine) {
    const hint = 'With Docker or Podman running, npm start starts these itself.';
    throw new MissingDependenciesError(
      unreachable.map((d) => describeMissing(d, images[d.kind])),
      hint,
    );
  }
  const started = await startDevDependencies(unreachable, engine, images);
  started.lines.forEach((line) => console.log(`stack: ${line}`));
  return started.containers;
}

/**
 * Before anything is migrated or started: a second `npm start` (or anything else) on PORT is said
 * in one line, instead of migrations and streams made in this stack's schema and namespace and then
 * the gateway's EADDRINUSE stack trace. The gateway's default HOST, 127.0.0.1, is what is checked.
 */
async function refuseTakenPort(port: number, keysDir: string): Promise<void> {
  if (port === 0 || !(await portInUse(port))) {
    return;
  }
  const running = readRunningStack(keysDir);
  const by = running ? ` by the stack already running (pid ${running.pid}, ${running.baseUrl})` : '';
  throw new ConfigError([`PORT ${port} is in use${by}: stop it, or set PORT to a free port`]);
}
