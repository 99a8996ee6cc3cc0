import 'reflect-metadata';
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ensureDevKeyPair, mintAccessToken, readSigningKey } from '@wrs/auth';
import { ensureDevCredentialKeys } from '@wrs/credentials';
import { freePort, LocalStack } from '@wrs/devstack';
import { openDatabase, Workspaces } from '@wrs/persistence';
import { check, observe } from './checker';
import { checkContainers } from './container-checker';
import { containerCancelAfter, containerRun, containerSchedule, containersOf, containerStackEnv } from './container-profile';
import { describe, Nemesis, schedule } from './nemesis';
import { sleep, startOwnServers, type DependencyName } from './servers';
import { EngineEventTap, engineRemove, engineUnusable, TcpProxy } from '@wrs/testing';
import { Workload } from './workload';
import { chaosReportMarkdown } from './report-markdown';

const WORKSPACE = 'chaos';
const SCHEMA = 'chaos';

/**
 * `npm run chaos`: its own NATS, Postgres and Redis, the stack pointed at them through fault-injecting
 * TCP proxies, a workload and SSE followers, a seeded nemesis, then a checker of every promise the
 * service makes. Writes chaos-results/report.{json,md} (the containers profile: chaos-results/containers/);
 * exits 1 when a verdict fails.
 */
async function main(): Promise<void> {
  const root = join(__dirname, '..', '..', '..', '..');
  const asked = process.env['CHAOS_PROFILE'];
  const profile = asked === 'long' || asked === 'containers' ? asked : 'short';
  // containers: real containers on the local engine (Podman), the worker killed around submit and cancel.
  const containers = profile === 'containers';
  const seconds = Number(process.env['CHAOS_SECONDS'] ?? (profile === 'long' ? 300 : containers ? 40 : 30));
  const seed = process.env['CHAOS_SEED'] ? Number(process.env['CHAOS_SEED']) : randomInt(1, 2 ** 31 - 1);
  const settleSeconds = Number(process.env['CHAOS_SETTLE_SECONDS'] ?? (profile === 'long' ? 120 : containers ? 90 : 45));
  // The engine may be shared: this run's containers carry an owner of their own.
  const NAMESPACE = containers ? `chaos${seed.toString(36)}` : 'chaos';
  const rate = Number(process.env['CHAOS_RATE'] ?? (containers ? 2 : 4));
  const started = Date.now();
  const t = (): string => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  const log = (line: string): void => console.log(`[chaos ${t()}] ${line}`);
  const noEngine = containers ? await engineUnusable() : undefined;
  if (noEngine) {
    throw new Error(`CHAOS_PROFILE=containers needs a container engine: ${noEngine}`);
  }
  log(
    `seed ${seed} (replay with CHAOS_SEED=${seed} CHAOS_PROFILE=${profile} CHAOS_SECONDS=${seconds}), profile ${profile}, ${seconds} s of faults`,
  );

  const lines: string[] = [];
  const keep = (source: string, line: string): void => {
    lines.push(`${new Date().toISOString()} [${source}] ${line}`);
    if (lines.length > 20_000) {
      lines.splice(0, 5_000);
    }
  };
  const ports = { nats: await freePort(), postgres: await freePort(), redis: await freePort() };
  const servers = await startOwnServers(ports, keep);
  const proxies = {} as Record<DependencyName, TcpProxy>;
  for (const name of ['nats', 'postgres', 'redis'] as const) {
    proxies[name] = new TcpProxy(ports[name]);
    await proxies[name].start();
  }
  const direct = {
    nats: `nats://127.0.0.1:${ports.nats}`,
    database: `postgres://postgres@127.0.0.1:${ports.postgres}/postgres`,
  };
  await waitForPostgres(direct.database);
  const keys = ensureDevKeyPair(mkdtempSync(join(tmpdir(), 'wrs-chaos-keys-')));
  const stack = new LocalStack({
    distDir: join(root, 'dist'),
    natsUrl: `nats://127.0.0.1:${proxies.nats.port}`,
    databaseUrl: `postgres://postgres@127.0.0.1:${proxies.postgres.port}/postgres`,
    databaseSchema: SCHEMA,
    redisUrl: `redis://127.0.0.1:${proxies.redis.port}`,
    namespace: NAMESPACE,
    publicKeyFile: keys.publicKeyFile,
    credentialKeys: ensureDevCredentialKeys(mkdtempSync(join(tmpdir(), 'wrs-chaos-kek-'))),
    replicas: { 'run-worker': 2, 'stream-relay': 2 },
    extraEnv: {
      LOG_LEVEL: 'warn',
      RECONCILE_INTERVAL_MS: '100',
      LIMIT_REQUESTS_PER_MINUTE: '1000000',
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '1000000',
      LIMIT_ACTIVE_RUNS: '100000',
      SSE_MAX_STREAMS_PER_WORKSPACE: '100000',
      ...(containers ? containerStackEnv() : {}),
    },
    onOutput: keep,
    startTimeoutMs: 120_000,
  });
  let exitCode = 1;
  try {
    await stack.start();
    const db = await openDatabase({ url: direct.database, schema: SCHEMA });
    await new Workspaces(db).ensure(WORKSPACE, 'Chaos');
    await db.destroy();
    const token = await mintAccessToken(readSigningKey(keys.privateKeyFile), {
      issuer: 'workload-run-service-dev',
      audience: 'workload-run-service',
      workspaceId: WORKSPACE,
      subject: 'chaos',
      ttlSeconds: 3600,
    });
    log(
      `stack up at ${stack.baseUrl}; NATS ${ports.nats}, Postgres ${ports.postgres}, Redis ${ports.redis} behind proxies ${proxies.nats.port}, ${proxies.postgres.port}, ${proxies.redis.port}`,
    );

    const tap = containers ? new EngineEventTap(NAMESPACE) : undefined;
    await tap?.start();
    const faults = containers ? containerSchedule(seed, seconds) : schedule(seed, seconds, profile);
    const nemesis = new Nemesis(stack, servers, proxies, log);
    const workload = new Workload({
      baseUrl: stack.baseUrl,
      token,
      workspaceId: WORKSPACE,
      seed,
      ratePerSecond: rate,
      followShare: 0.3,
      log,
      ...(containers ? { body: containerRun, cancelAfter: containerCancelAfter } : {}),
    });
    const phaseStart = Date.now();
    const generating = workload.run();
    await nemesis.run(faults, phaseStart);
    await sleep(Math.max(0, phaseStart + seconds * 1000 - Date.now()));
    workload.stop();
    await generating;
    await nemesis.heal();
    const faultsStopped = Date.now();
    log(
      `faults stopped after ${nemesis.injected.length} faults; waiting for creates in flight and a settle period (at most ${settleSeconds} s)`,
    );
    const deadline = faultsStopped + settleSeconds * 1000;
    await workload.drain(faultsStopped + (settleSeconds * 1000) / 2);
    await workload.followersDone(deadline);
    const runIds = new Set(workload.creates.flatMap((c) => c.outcomes.flatMap((o) => (o.ok ? [o.runId] : []))));
    let observed = await observe(direct.nats, direct.database, SCHEMA, NAMESPACE);
    // Settled: every acknowledged create has its row, every run ended, and the worker acknowledged
    // every command and event (one delivered to a worker that died, or over a connection a fault cut,
    // comes back only after the ack wait, 30 s).
    const unsettled = (o: typeof observed): boolean =>
      o.projectionBacklog > 0 ||
      o.commandBacklog > 0 ||
      [...runIds].some((id) => !o.rows.has(id)) ||
      [...o.rows.values()].some((r) => !['succeeded', 'failed', 'canceled'].includes(r.state));
    // And, with containers, the engine holds none of this run's any more (each run ended).
    const engineBusy = async (): Promise<boolean> => containers && (await containersOf(NAMESPACE)).length > 0;
    while (Date.now() < deadline && (unsettled(observed) || (await engineBusy()))) {
      await sleep(500);
      observed = await observe(direct.nats, direct.database, SCHEMA, NAMESPACE);
    }
    // The projection may trail the last event by a moment: one more look once everything is terminal.
    await sleep(1000);
    observed = await observe(direct.nats, direct.database, SCHEMA, NAMESPACE);
    const settledAfterMs = Date.now() - faultsStopped;
    const verdicts = check(workload.creates, workload.followers, observed);
    if (tap) {
      const engine = { events: await tap.stop(), left: await containersOf(NAMESPACE) };
      verdicts.push(...checkContainers(observed, engine, nemesis.injected));
    }
    const outcomes = workload.creates.flatMap((c) => c.outcomes);
    const counts = {
      logicalCreates: workload.creates.length,
      sends: outcomes.length,
      acknowledged: outcomes.filter((o) => o.ok).length,
      replayed: outcomes.filter((o) => o.ok && o.replayed).length,
      failedSends: outcomes.filter((o) => !o.ok).length,
      failuresByCode: tally(outcomes.flatMap((o) => (o.ok ? [] : [o.code]))),
      logicalCreatesWithoutAnswer: workload.creates.filter((c) => !c.outcomes.some((o) => o.ok)).length,
      cancels: workload.creates.filter((c) => c.canceled).length,
      runsInJetStream: observed.runs.size,
      eventsInJetStream: [...observed.runs.values()].reduce((n, r) => n + r.events.length, 0),
      rowsInPostgres: observed.rows.size,
      projectionBacklogAtCheck: observed.projectionBacklog,
      commandBacklogAtCheck: observed.commandBacklog,
      finalStates: tally([...observed.rows.values()].map((r) => r.state)),
      failedRunsByCode: tally([...observed.rows.values()].flatMap((r) => (r.body.failure ? [r.body.failure.code] : []))),
      followers: workload.followers.length,
      followerEvents: workload.followers.reduce((n, f) => n + f.ids.length, 0),
      followerReconnects: workload.followers.reduce((n, f) => n + f.connections.length - 1, 0),
    };
    const report = {
      seed,
      profile,
      seconds,
      settleSeconds,
      replay: `CHAOS_SEED=${seed} CHAOS_PROFILE=${profile} CHAOS_SECONDS=${seconds} npm run chaos`,
      startedAt: new Date(started).toISOString(),
      settledAfterMs,
      faults: nemesis.injected.map((f) => ({ ...f, description: describe(f.fault) })),
      counts,
      verdicts,
      ok: verdicts.every((v) => v.ok),
    };
    const out = join(root, 'chaos-results', ...(containers ? ['containers'] : []));
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'report.json'), JSON.stringify(report, null, 2));
    writeFileSync(
      join(out, 'workload.json'),
      JSON.stringify({ phaseStart, creates: workload.creates, followers: workload.followers }, null, 2),
    );
    writeFileSync(join(out, 'report.md'), chaosReportMarkdown(report, verdicts));
    writeFileSync(join(out, 'stack.log'), lines.join('\n'));
    console.log(chaosReportMarkdown(report, verdicts));
    log(`report written to ${join(out, 'report.md')} (and report.json, stack.log)`);
    exitCode = report.ok ? 0 : 1;
  } catch (error) {
    console.error(error);
    const out = join(root, 'chaos-results', ...(containers ? ['containers'] : []));
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'stack.log'), lines.join('\n'));
  } finally {
    for (const proxy of Object.values(proxies)) {
      proxy.setFault({ kind: 'none' });
    }
    await stack.stop().catch(() => undefined);
    // Decided already: what this run left on a shared engine goes.
    for (const c of containers ? await containersOf(NAMESPACE).catch(() => []) : []) {
      await engineRemove(c.id).catch(() => undefined);
    }
    await Promise.all(Object.values(proxies).map((p) => p.close()));
    await servers.stopAll();
  }
  log(exitCode === 0 ? 'PASS' : 'FAIL');
  process.exit(exitCode);
}

function tally(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) {
    out[v] = (out[v] ?? 0) + 1;
  }
  return out;
}

async function waitForPostgres(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) {
        throw error;
      }
      await sleep(200);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
