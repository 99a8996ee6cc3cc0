#!/usr/bin/env node
// Proves the Testcontainers path on this machine (Podman's Docker API + the locally built images):
// starts NATS, Postgres and Redis with GenericContainer, talks to each with a real client, prints
// how long each took to become ready, then tries the @testcontainers/{postgresql,redis,nats} modules.
//
//   bash scripts/podman/setup.sh && node scripts/podman/verify.mjs
//
// Dependencies live in a scratch dir (default /tmp/tc-verify, env TC_VERIFY_DIR), never in the repo;
// they are installed there on first use. Exit code: 0 when every GenericContainer check passed
// (module results are informational unless --strict-modules).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const DEPS = [
  'testcontainers@11.14',
  '@testcontainers/postgresql@11.14',
  '@testcontainers/redis@11.14',
  '@testcontainers/nats@11.11', // the newest 11.x of this module (there is no 11.14)
  'pg@8',
  'ioredis@5',
  '@nats-io/transport-node@3',
  '@nats-io/jetstream@3',
];
const strictModules = process.argv.includes('--strict-modules');

// Same values as scripts/podman/env.sh, so the script also works without sourcing it.
const env = process.env;
env.DOCKER_HOST ??= 'unix:///run/podman/podman.sock';
env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
const IMAGES = {
  nats: env.WRS_TEST_IMAGE_NATS ?? 'localhost/wrs-test/nats:2.9',
  postgres: env.WRS_TEST_IMAGE_POSTGRES ?? 'localhost/wrs-test/postgres:15',
  redis: env.WRS_TEST_IMAGE_REDIS ?? 'localhost/wrs-test/redis:7',
};

const depDir = env.TC_VERIFY_DIR ?? '/tmp/tc-verify';
const req = createRequire(join(depDir, 'noop.js'));
function ensureDeps() {
  try {
    for (const d of [
      'testcontainers',
      '@testcontainers/postgresql',
      '@testcontainers/redis',
      '@testcontainers/nats',
      'pg',
      'ioredis',
      '@nats-io/transport-node',
      '@nats-io/jetstream',
    ])
      req.resolve(d);
    return;
  } catch {
    /* install below */
  }
  mkdirSync(depDir, { recursive: true });
  if (!existsSync(join(depDir, 'package.json'))) writeFileSync(join(depDir, 'package.json'), '{"name":"tc-verify","private":true}\n');
  console.log(`installing ${DEPS.join(' ')} into ${depDir} ...`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', ...DEPS], { cwd: depDir, stdio: 'inherit' });
}
ensureDeps();

const { GenericContainer, Wait } = req('testcontainers');
const { PostgreSqlContainer } = req('@testcontainers/postgresql');
const { RedisContainer } = req('@testcontainers/redis');
const { NatsContainer } = req('@testcontainers/nats');
const pg = req('pg');
const Redis = req('ioredis');
const { connect } = req('@nats-io/transport-node');
const { jetstreamManager } = req('@nats-io/jetstream');

const results = [];
const ms = (t0) => Math.round(performance.now() - t0);

async function check(kind, name, startFn, useFn) {
  const t0 = performance.now();
  let container;
  const row = { kind, name, ok: false };
  try {
    container = await startFn();
    row.readyMs = ms(t0);
    const t1 = performance.now();
    row.detail = await useFn(container);
    row.clientMs = ms(t1);
    row.ok = true;
  } catch (err) {
    row.error = String(err?.message ?? err).split('\n')[0];
  } finally {
    if (container) {
      const t2 = performance.now();
      await container.stop().catch((e) => (row.stopError = String(e?.message ?? e)));
      row.stopMs = ms(t2);
    }
  }
  results.push(row);
  console.log(
    row.ok
      ? `PASS ${kind} ${name}: ready in ${row.readyMs} ms, client ${row.clientMs} ms (${row.detail}), stop ${row.stopMs} ms`
      : `FAIL ${kind} ${name}: ${row.error}${row.readyMs ? ` (after ready in ${row.readyMs} ms)` : ''}`,
  );
}

// ---- clients
async function pgSelect1({ host, port, user, password, database }) {
  const client = new pg.Client({ host, port, user, password, database });
  await client.connect();
  try {
    const r = await client.query('select 1 as one, current_user as u, current_database() as db');
    if (r.rows[0].one !== 1) throw new Error('select 1 returned ' + JSON.stringify(r.rows));
    return `select 1 ok as ${r.rows[0].u}@${r.rows[0].db}`;
  } finally {
    await client.end();
  }
}
async function redisPing({ host, port, password }) {
  const redis = new Redis({ host, port, password, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  await redis.connect();
  try {
    const pong = await redis.ping();
    if (pong !== 'PONG') throw new Error('PING answered ' + pong);
    return 'PING -> PONG';
  } finally {
    redis.disconnect();
  }
}
async function natsJetStream(opts) {
  const nc = await connect({ ...opts, timeout: 5000 });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.getAccountInfo();
    return `jetstream account info ok (streams=${info.streams}, api.total=${info.api?.total})`;
  } finally {
    await nc.close();
  }
}

// ---- GenericContainer with our own wait strategies (the supported path)
const PG_ENV = { POSTGRES_USER: 'wrs', POSTGRES_PASSWORD: 'wrs-secret', POSTGRES_DB: 'wrs_test' };

await check(
  'GenericContainer',
  IMAGES.nats,
  () =>
    new GenericContainer(IMAGES.nats)
      .withExposedPorts(4222, 8222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .withStartupTimeout(60_000)
      .start(),
  (c) => natsJetStream({ servers: `${c.getHost()}:${c.getMappedPort(4222)}` }),
);

await check(
  'GenericContainer',
  IMAGES.postgres,
  () =>
    new GenericContainer(IMAGES.postgres)
      .withEnvironment(PG_ENV)
      .withExposedPorts(5432)
      // logged once by the temporary init server, once by the real one (as the official image does)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .withStartupTimeout(60_000)
      .start(),
  (c) =>
    pgSelect1({
      host: c.getHost(),
      port: c.getMappedPort(5432),
      user: PG_ENV.POSTGRES_USER,
      password: PG_ENV.POSTGRES_PASSWORD,
      database: PG_ENV.POSTGRES_DB,
    }),
);

await check(
  'GenericContainer',
  IMAGES.redis,
  () =>
    new GenericContainer(IMAGES.redis)
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .withStartupTimeout(60_000)
      .start(),
  (c) => redisPing({ host: c.getHost(), port: c.getMappedPort(6379) }),
);

// all three at once, as a test suite's globalSetup would
{
  const t0 = performance.now();
  const started = await Promise.allSettled([
    new GenericContainer(IMAGES.nats)
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
    new GenericContainer(IMAGES.postgres)
      .withEnvironment(PG_ENV)
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
    new GenericContainer(IMAGES.redis).withExposedPorts(6379).withWaitStrategy(Wait.forLogMessage('Ready to accept connections')).start(),
  ]);
  const readyMs = ms(t0);
  const failed = started.filter((s) => s.status === 'rejected');
  const row = { kind: 'GenericContainer', name: 'all three in parallel', ok: failed.length === 0, readyMs };
  if (row.ok) {
    const [n, p, r] = started.map((s) => s.value);
    await natsJetStream({ servers: `${n.getHost()}:${n.getMappedPort(4222)}` });
    await pgSelect1({
      host: p.getHost(),
      port: p.getMappedPort(5432),
      user: PG_ENV.POSTGRES_USER,
      password: PG_ENV.POSTGRES_PASSWORD,
      database: PG_ENV.POSTGRES_DB,
    });
    await redisPing({ host: r.getHost(), port: r.getMappedPort(6379) });
  } else row.error = failed.map((f) => String(f.reason?.message ?? f.reason).split('\n')[0]).join('; ');
  const t2 = performance.now();
  await Promise.all(started.filter((s) => s.status === 'fulfilled').map((s) => s.value.stop()));
  row.stopMs = ms(t2);
  results.push(row);
  console.log(
    row.ok
      ? `PASS ${row.kind} ${row.name}: all ready in ${readyMs} ms, clients ok, stop ${row.stopMs} ms`
      : `FAIL ${row.kind} ${row.name}: ${row.error}`,
  );
}

// ---- the official Testcontainers modules, pointed at our images
await check(
  '@testcontainers/postgresql PostgreSqlContainer',
  IMAGES.postgres,
  // as-is: its wait strategy is the container HEALTHCHECK (pg_isready) + listening ports. Podman runs
  // health checks from systemd timers; there is no systemd here, so this passes only while
  // scripts/podman/healthcheck-pump.sh (started by setup.sh) runs them instead.
  () => new PostgreSqlContainer(IMAGES.postgres).withStartupTimeout(Number(env.WRS_VERIFY_HEALTHCHECK_TIMEOUT_MS ?? 15_000)).start(),
  (c) => pgSelect1({ host: c.getHost(), port: c.getPort(), user: c.getUsername(), password: c.getPassword(), database: c.getDatabase() }),
);
// Without the pump: keep the module (getConnectionUri() etc.) but wait on the log line instead.
await check(
  '@testcontainers/postgresql PostgreSqlContainer + log wait',
  IMAGES.postgres,
  () =>
    new PostgreSqlContainer(IMAGES.postgres)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .withStartupTimeout(30_000)
      .start(),
  (c) => pgSelect1({ host: c.getHost(), port: c.getPort(), user: c.getUsername(), password: c.getPassword(), database: c.getDatabase() }),
);
await check(
  '@testcontainers/redis RedisContainer',
  IMAGES.redis,
  () => new RedisContainer(IMAGES.redis).withPassword('wrs-redis-pw').withStartupTimeout(30_000).start(),
  (c) => redisPing({ host: c.getHost(), port: c.getPort(), password: c.getPassword() }),
);
await check(
  '@testcontainers/nats NatsContainer',
  IMAGES.nats,
  () => new NatsContainer(IMAGES.nats).withJetStream().withStartupTimeout(30_000).start(),
  (c) => natsJetStream(c.getConnectionOptions()),
);

const generic = results.filter((r) => r.kind === 'GenericContainer');
const modules = results.filter((r) => r.kind !== 'GenericContainer');
const passed = results.filter((r) => r.ok).length;
console.log(
  `\nGenericContainer: ${generic.filter((r) => r.ok).length}/${generic.length} ok; modules: ${modules.filter((r) => r.ok).length}/${modules.length} ok`,
);
console.log(`${passed} passed, ${results.length - passed} failed`);
const mustPass = strictModules ? results : generic;
process.exit(mustPass.every((r) => r.ok) ? 0 : 1);
