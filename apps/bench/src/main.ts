import 'reflect-metadata';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ensureDevKeyPair, mintAccessToken, readSigningKey } from '@wrs/auth';
import { freePort, LocalStack } from '@wrs/devstack';
import { migrate, openDatabase, Workspaces } from '@wrs/persistence';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { StreamNames } from '@wrs/messaging';
import { createThroughput, endToEnd, fanOut, readThroughput, resumeCost, type Figure } from './scenarios';

/**
 * `npm run bench`: starts an isolated stack, runs each scenario after a warm-up, and writes every
 * figure next to its baseline measured on the same machine in the same run (bench-results/).
 */
async function main(): Promise<void> {
  const root = join(__dirname, '..', '..', '..', '..');
  const env = {
    natsUrl: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    databaseUrl: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
  };
  const seconds = Number(process.env['BENCH_SECONDS'] ?? '10');
  const fanOutSizes = (process.env['BENCH_FANOUT'] ?? '1000').split(',').map(Number);
  const namespace = `bench${randomUUID().slice(0, 6)}`;
  const keys = ensureDevKeyPair(mkdtempSync(join(tmpdir(), 'wrs-bench-keys-')));
  const database = { url: env.databaseUrl, schema: namespace };
  await migrate(database);
  const stack = new LocalStack({
    distDir: join(root, 'dist'),
    natsUrl: env.natsUrl,
    databaseUrl: env.databaseUrl,
    databaseSchema: namespace,
    redisUrl: env.redisUrl,
    namespace,
    publicKeyFile: keys.publicKeyFile,
    gatewayPort: await freePort(),
    extraEnv: {
      LOG_LEVEL: 'warn',
      LIMIT_REQUESTS_PER_MINUTE: '100000000',
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '100000000',
      LIMIT_ACTIVE_RUNS: '100000000',
      SSE_MAX_STREAMS_PER_WORKSPACE: '100000',
    },
    onOutput: () => undefined,
  });
  await stack.start();
  const db = await openDatabase(database);
  await new Workspaces(db).ensure('bench', 'Benchmarks');
  const token = mintAccessToken(readSigningKey(keys.privateKeyFile), {
    issuer: 'workload-run-service-dev', audience: 'workload-run-service', workspaceId: 'bench', subject: 'bench', ttlSeconds: 3600,
  });
  const figures: Figure[] = [];
  try {
    const warm = await createThroughput(stack.baseUrl, token, env.natsUrl, 2);
    void warm;
    figures.push(...(await createThroughput(stack.baseUrl, token, env.natsUrl, seconds)));
    const probe = await fetch(`${stack.baseUrl}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ workload: { image: 'busybox', env: { SIM_DURATION_MS: '600000' } }, provider: 'auto', region: 'auto' }),
    });
    const { id } = (await probe.json()) as { id: string };
    const created = await db.query('SELECT count(*) AS n FROM run_events');
    const backlogStarted = performance.now();
    await waitUntil(async () => (await db.query('SELECT 1 FROM runs WHERE id = $1', [id])).length === 1, 600_000);
    figures.push({
      scenario: 'projection',
      metric: 'time until a run created after the create burst is projected (the worker draining the burst)',
      value: Math.round(performance.now() - backlogStarted),
      unit: 'ms',
    });
    void created;
    // Let the reconciler settle the burst's runs before measuring reads and latency.
    await waitUntil(async () => Number(((await db.query(`SELECT count(*) AS n FROM runs WHERE state = 'queued'`)) as { n: string }[])[0]?.n) === 0, 600_000);
    figures.push(...(await readThroughput(stack.baseUrl, token, id, env.databaseUrl, namespace, seconds)));
    figures.push(...(await endToEnd(stack.baseUrl, token, env.natsUrl, 50, seconds)));
    const relayUrl = `http://127.0.0.1:${stack.portOf('stream-relay')}/api/v1`;
    for (const size of fanOutSizes) {
      const res = await fetch(`${stack.baseUrl}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ workload: { image: 'busybox', env: { SIM_DURATION_MS: '600000' } }, provider: 'auto', region: 'auto' }),
      });
      const run = (await res.json()) as { id: string };
      await waitUntil(async () => ((await db.query(`SELECT state FROM runs WHERE id = $1`, [run.id])) as { state: string }[])[0]?.state === 'running');
      figures.push(
        ...(await fanOut(relayUrl, token, run.id, stack.processes.get('stream-relay')!.pid!, size, async () => {
          await fetch(`${stack.baseUrl}/runs/${run.id}:cancel`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
        })),
      );
    }
    const resumeTotal = Number(process.env['BENCH_RESUME_EVENTS'] ?? '1000000');
    if (resumeTotal > 0) {
      const names = new StreamNames(namespace);
      figures.push(
        ...(await resumeCost(relayUrl, token, env.natsUrl, { eventsStream: names.eventsStream, subject: (id) => names.runEvents('bench', id) }, resumeTotal)),
      );
    }
  } finally {
    await db.destroy();
    await stack.stop();
  }
  const out = join(root, 'bench-results');
  mkdirSync(out, { recursive: true });
  const machine = { node: process.version, cpus: cpus().length, at: new Date().toISOString() };
  writeFileSync(join(out, 'results.json'), JSON.stringify({ machine, seconds, figures }, null, 2));
  const rows = figures.map(
    (f) =>
      `| ${f.scenario} | ${f.metric} | ${f.value} ${f.unit} | ${f.baseline ? `${f.baseline.value} (${f.baseline.what})` : ''} | ${f.ratio ?? ''} | ${f.target ?? ''} |`,
  );
  const table = ['| scenario | metric | value | baseline | ratio | target |', '|---|---|---|---|---|---|', ...rows].join('\n');
  writeFileSync(join(out, 'results.md'), `# Benchmark results\n\nNode ${machine.node}, ${machine.cpus} cores, ${machine.at}, ${seconds} s per scenario.\n\n${table}\n`);
  console.log(table);
  await cleanUp(env.natsUrl, env.databaseUrl, namespace);
  process.exit(0);
}

async function waitUntil(probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/** The bench's streams and schema go away with it. */
async function cleanUp(natsUrl: string, databaseUrl: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  // Deleting a stream of many messages takes a while.
  const jsm = await jetstreamManager(nc, { timeout: 60_000 });
  for await (const name of jsm.streams.names()) {
    if (name.startsWith(`${namespace.toUpperCase()}_`)) {
      await jsm.streams.delete(name).catch((error: unknown) => console.error(`could not delete stream ${name}: ${String(error)}`));
    }
  }
  await nc.close();
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`);
  await client.end();
}
