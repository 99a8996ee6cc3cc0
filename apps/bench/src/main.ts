import 'reflect-metadata';
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { constants, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ensureDevKeyPair, mintAccessToken, readSigningKey } from '@wrs/auth';
import { LocalStack } from '@wrs/devstack';
import { migrate, openDatabase, Workspaces } from '@wrs/persistence';
import { StreamNames } from '@wrs/messaging';
import { cleanUp } from './clean-up';
import { labelFilterPage } from './label-filter';
import { projectionCatchUp } from './projection';
import { quietRunsCost } from './quiet-runs-scenario';
import { CpuUsage } from './cpu-usage';
import { round } from './stats';
import { cpuPerRunFigures } from './cpu-per-run';
import { essentialSseRead, eventsPerRunOf, measureEssential, type EssentialMeasured } from './essential/essential-scenario';
import { ESSENTIAL_COUNTERPARTS, essentialWhat, type EssentialProcesses } from './essential/essential-process';
import { essentialLoadFigures } from './essential/essential-figures';
import { serversOf, waitUntil } from './stack-probes';
import { writeResults } from './write-results';
import { freePort } from './heap-after-collection';
import { logLineAppender } from './fan-out-event';
import { measureFloor, type FloorLoads } from './floor/floor-scenario';
import { startFloor, type FloorProcess } from './floor/floor-process';
import {
  createLoad,
  createThroughput,
  CREATE_BODY,
  endToEnd,
  fanOut,
  readLoad,
  readThroughput,
  resumeCost,
  type Figure,
} from './scenarios';
import { serversLine, startPrivateServers } from './private-servers';
import { projectionWriteFloor } from './projection-floor/projection-floor-scenario';
import { breakdownPerRun, StatementStats, sumWindows, type StatementBreakdown, type StatementWindow } from './pg-statements';

/** The (#26) targets: latency end to end at this rate, CPU per run at that one, as a median of so many. */
const JUDGED_LATENCY_RATE = 200;
const JUDGED_CPU_RATE = 100;
const CPU_MEASUREMENTS = 3;

/**
 * `npm run bench`: starts an isolated stack, runs each scenario after a warm-up, and writes every
 * figure next to its baseline measured on the same machine in the same run (bench-results/).
 */
async function main(): Promise<void> {
  const root = join(__dirname, '..', '..', '..', '..');
  const loadAtStart = loadavg().map((l) => round(l));
  // BENCH_PRIVATE_SERVERS=1: a NATS, Postgres and Redis of the bench's own on free loopback ports, so
  // their CPU per run is this bench's work alone; stopped and removed when it exits (Ctrl-C included).
  const privateServers = process.env['BENCH_PRIVATE_SERVERS'] === '1' ? await startPrivateServers() : undefined;
  let holding = false; // BENCH_HOLD: a Ctrl-C then ends the hold, not the bench
  let stopServices = (): Promise<void> => Promise.resolve();
  if (privateServers) {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.on(signal, () => {
        if (!(holding && signal === 'SIGINT')) {
          console.error(`${signal}: stopping the services and the private servers`);
          // The services first (a signal to the bench alone leaves them running otherwise); the exit stops the servers.
          const exit = (): never => process.exit(128 + constants.signals[signal]);
          setTimeout(exit, 15_000).unref();
          void stopServices().finally(exit);
        }
      });
    }
  }
  const env = privateServers
    ? { natsUrl: privateServers.natsUrl, databaseUrl: privateServers.databaseUrl, redisUrl: privateServers.redisUrl }
    : {
        natsUrl: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
        databaseUrl: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
        redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      };
  if (privateServers) {
    console.log(serversLine(env, privateServers.started));
  }
  const seconds = Number(process.env['BENCH_SECONDS'] ?? '10');
  const fanOutSizes = (process.env['BENCH_FANOUT'] ?? '1000').split(',').map(Number);
  // BENCH_SCENARIOS=create,read,e2e,fanout,projection,projection-floor,resume,quiet,labels (all by default) runs a subset;
  // BENCH_CPU_PROF=<dir> makes every service write a V8 CPU profile there when it stops (services.json: whose is which).
  const scenarios = ['create', 'read', 'e2e', 'fanout', 'projection', 'projection-floor', 'resume', 'quiet', 'labels'];
  const only = new Set(process.env['BENCH_SCENARIOS']?.split(',') ?? scenarios);
  const unknown = [...only].filter((name) => !scenarios.includes(name));
  if (unknown.length > 0) {
    throw new Error(`BENCH_SCENARIOS: no scenario ${unknown.join(', ')} (there are ${scenarios.join(', ')})`);
  }
  const cpuProfDir = process.env['BENCH_CPU_PROF'];
  const namespace = `bench${randomUUID().slice(0, 6)}`;
  const keys = ensureDevKeyPair(mkdtempSync(join(tmpdir(), 'wrs-bench-keys-')));
  const database = { url: env.databaseUrl, schema: namespace };
  await migrate(database);
  const relayInspectPort = await freePort();
  const stack = new LocalStack({
    distDir: join(root, 'dist'),
    natsUrl: env.natsUrl,
    databaseUrl: env.databaseUrl,
    databaseSchema: namespace,
    redisUrl: env.redisUrl,
    namespace,
    publicKeyFile: keys.publicKeyFile,
    extraEnv: {
      LOG_LEVEL: 'warn',
      LIMIT_REQUESTS_PER_MINUTE: '100000000',
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '100000000',
      LIMIT_ACTIVE_RUNS: '100000000',
      SSE_MAX_STREAMS_PER_WORKSPACE: '100000',
    },
    // Every service may open an inspector on this port when sent SIGUSR1; only the relay is, for the
    // fan-out's memory reading (heap-after-collection.ts).
    nodeArgs: [`--inspect-port=127.0.0.1:${relayInspectPort}`, ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [])],
    onOutput: () => undefined,
  });
  let essentialProcesses: EssentialProcesses | undefined;
  stopServices = () => Promise.all([essentialProcesses?.stop(), stack.stop()]).then(() => undefined);
  const token = await mintAccessToken(readSigningKey(keys.privateKeyFile), {
    issuer: 'workload-run-service-dev',
    audience: 'workload-run-service',
    workspaceId: 'bench',
    subject: 'bench',
    ttlSeconds: 3600,
  });
  const e2eRates = (process.env['BENCH_E2E_RATE'] ?? '200,100').split(',').map(Number);
  // The essential work of a run on the same parts (essential/), CPU's same-run baseline at the judged
  // rate: measured before the stack starts, so the servers' CPU in its windows is its own work. Its
  // api's create and read, baselines of ours, are measured there too: without e2e, not at all.
  let essential: EssentialMeasured | undefined;
  const essentialPids = new Map<string, string>();
  if (only.has('e2e') && e2eRates.includes(JUDGED_CPU_RATE)) {
    // A failed baseline leaves the figure without one; it does not cost the whole bench.
    essential = await measureEssential(
      join(root, 'dist'),
      {
        natsUrl: env.natsUrl,
        databaseUrl: env.databaseUrl,
        schema: namespace,
        namespace,
        publicKeyFile: keys.publicKeyFile,
        sseRead: essentialSseRead(process.env['BENCH_ESSENTIAL_SSE']),
      },
      token,
      serversOf(env),
      JUDGED_CPU_RATE,
      seconds,
      CPU_MEASUREMENTS,
      (processes) => {
        essentialProcesses = processes;
        processes?.pids.forEach((pid, name) => essentialPids.set(String(pid), name));
      },
      cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [],
      { create: only.has('create'), read: only.has('read'), seconds },
    ).catch((error: unknown) => {
      console.error(`the essential-work baseline failed, CPU per run goes without it: ${String(error)}`);
      return undefined;
    });
  }
  await stack.start();
  // Which profile is whose: a .cpuprofile is named by its process id only.
  const profiled = new Map([...stack.processes].map(([name, child]) => [String(child.pid), name]));
  essentialPids.forEach((name, pid) => profiled.set(pid, name));
  const db = await openDatabase(database);
  await new Workspaces(db).ensure('bench', 'Benchmarks');
  const figures: Figure[] = [];
  let floor: FloorProcess | undefined;
  // Postgres's statements during the judged CPU-per-run windows (a private server only: it preloads pg_stat_statements).
  const statementStats = privateServers && only.has('e2e') ? await StatementStats.open(env.databaseUrl) : undefined;
  let statements: StatementBreakdown | undefined;
  try {
    const createRun = async (env: Record<string, string>): Promise<string> => {
      const res = await fetch(`${stack.baseUrl}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ workload: { image: 'busybox', env }, provider: 'auto', region: 'auto' }),
      });
      return ((await res.json()) as { id: string }).id;
    };
    const stateOf = async (id: string): Promise<string | undefined> =>
      ((await db.query(`SELECT state FROM runs WHERE id = $1`, [id])) as { state: string }[])[0]?.state;
    // Create and read go straight to the api, as a production ingress would send them (the gateway is
    // the local stand-in for one, a Node process of its own on the same cores); reads are measured
    // through it too, to show what it costs. End to end, fan-out and resume go straight to the relay.
    const apiUrl = `http://127.0.0.1:${stack.portOf('api')}/api/v1`;
    const apiPid = stack.processes.get('api')!.pid!;
    // The framework floor: the api's Nest-on-Express app and middleware around a no-op controller, in
    // a process of its own, measured like create and read so their ratios say what is ours.
    let floorLoads: FloorLoads | undefined;
    if (only.has('create') || only.has('read')) {
      floor = await startFloor(join(root, 'dist'), cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [], { LOG_LEVEL: 'warn' });
      profiled.set(String(floor.pid), 'framework floor');
      await measureFloor(floor, 2, CREATE_BODY); // warm-up
      const measured = await measureFloor(floor, seconds, CREATE_BODY);
      floorLoads = measured.loads;
      figures.push(...measured.figures);
      await floor.stop();
      floor = undefined;
    }
    if (only.has('create')) {
      await autocannon(createLoad(`${apiUrl}/runs`, token, 2)); // warm-up
      figures.push(
        ...(await createThroughput(apiUrl, token, env.natsUrl, seconds, 'straight to the api', { apiPid, floor: floorLoads!.create })),
      );
      if (essential?.loads?.create) {
        figures.push(...essentialLoadFigures('create', essential.loads.create, figures));
      }
      const id = await createRun({ SIM_DURATION_MS: '600000' });
      const backlogStarted = performance.now();
      await waitUntil(async () => (await stateOf(id)) !== undefined, 600_000);
      figures.push({
        scenario: 'create',
        metric: 'time until a run created after the create burst is projected (the worker draining the burst)',
        value: Math.round(performance.now() - backlogStarted),
        unit: 'ms',
      });
      // Let the reconciler settle the burst's runs before measuring reads and latency.
      await waitUntil(
        async () => Number(((await db.query(`SELECT count(*) AS n FROM runs WHERE state = 'queued'`)) as { n: string }[])[0]?.n) === 0,
        600_000,
      );
      // The api alone: with the worker stopped the commands wait in JetStream, so the figure is what
      // the api accepts, not what two cores do for the api and the worker together. The worker then
      // drains them, from queued to finished: its rate is the other half of the create ceiling.
      const countRuns = async (where: 'terminal' | 'NOT terminal'): Promise<number> =>
        Number(((await db.query(`SELECT count(*) AS n FROM runs WHERE ${where}`)) as { n: string }[])[0]?.n);
      const finished = (): Promise<number> => countRuns('terminal');
      await waitUntil(async () => (await countRuns('NOT terminal')) <= 1, 600_000);
      const finishedBefore = await finished();
      for (const worker of stack.instances('run-worker')) {
        await stack.kill(worker, 'SIGTERM');
      }
      // Its CPU per create is set against the floor's too, both driven as fast as they answer without the
      // worker beside them (the api still drives the servers; the floor has none), without a target.
      const alone = await createThroughput(apiUrl, token, env.natsUrl, seconds, 'straight to the api, worker stopped', {
        apiPid,
        floor: floorLoads!.create,
        judged: false,
      });
      figures.push(...alone);
      const accepted = alone.find((f) => f.metric.startsWith('accepted'))?.value ?? 0;
      const drainStarted = performance.now();
      for (const worker of stack.instances('run-worker')) {
        profiled.set(String(stack.startService(worker).pid), `${worker} (restarted)`);
      }
      await waitUntil(async () => (await finished()) >= finishedBefore + accepted, 600_000);
      const drainSeconds = (performance.now() - drainStarted) / 1000;
      figures.push({
        scenario: 'create',
        metric: `worker drain: ${accepted} runs accepted while it was stopped, queued to finished`,
        value: Math.round(accepted / drainSeconds),
        unit: 'runs/s',
      });
    }
    if (only.has('read')) {
      const id = await createRun({ SIM_DURATION_MS: '600000' });
      await waitUntil(async () => (await stateOf(id)) !== undefined);
      await autocannon(readLoad(`${apiUrl}/runs/${id}`, token, 2)); // warm-up, as the essential read's
      figures.push(
        ...(await readThroughput(apiUrl, token, id, env.databaseUrl, namespace, seconds, 'straight to the api', {
          apiPid,
          floor: floorLoads!.read,
        })),
      );
      if (essential?.loads?.read) {
        figures.push(...essentialLoadFigures('read', essential.loads.read, figures));
      }
      figures.push(
        ...(await readThroughput(stack.baseUrl, token, id, env.databaseUrl, namespace, seconds, 'through the gateway')).filter((f) =>
          f.metric.startsWith('GET'),
        ),
      );
    }
    const relayUrl = `http://127.0.0.1:${stack.portOf('stream-relay')}/api/v1`;
    if (process.env['BENCH_HOLD']) {
      // For profiling by hand: the stack stays up (with the bench's limits) until Ctrl-C.
      const pids = Object.fromEntries([...stack.processes].map(([name, child]) => [name, child.pid]));
      console.log(JSON.stringify({ apiUrl, relayUrl, token, pids }));
      holding = true;
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
      holding = false;
    }
    if (only.has('e2e')) {
      // What autovacuum has done in a deployment that has run a minute: without statistics the planner
      // can count the unfinished runs in parallel (see private-servers.ts), and whether autovacuum's
      // first pass falls before or within a window would make Postgres's figure differ run to run.
      await db.query('ANALYZE runs, run_events, run_labels');
      const pids = new Map([...stack.processes].flatMap(([name, child]) => (child.pid ? [[name, child.pid] as const] : [])));
      const servers = serversOf(env);
      for (const rate of e2eRates) {
        // At the judged rate CPU per run is measured three times (its noise here is a few ms); the latency shown is the first's.
        const cpuPerRun: Map<string, number>[] = [];
        const windows: StatementWindow[] = [];
        for (let i = 0; i < (rate === JUDGED_CPU_RATE ? CPU_MEASUREMENTS : 1); i++) {
          const measured = await endToEnd(
            apiUrl,
            relayUrl,
            token,
            env.natsUrl,
            rate,
            seconds,
            () => new CpuUsage(pids, servers),
            rate === JUDGED_LATENCY_RATE,
            rate === JUDGED_CPU_RATE ? statementStats : undefined,
          );
          figures.push(...(i === 0 ? measured.figures : []));
          cpuPerRun.push(measured.cpuPerRun);
          windows.push(...(measured.statements ? [measured.statements] : []));
        }
        const baseline =
          rate === JUDGED_CPU_RATE && essential
            ? {
                what: essentialWhat(essential.sseRead, essential.cpuPerRun.length),
                measurements: essential.cpuPerRun,
                counterparts: ESSENTIAL_COUNTERPARTS,
              }
            : undefined;
        figures.push(...cpuPerRunFigures(`at ${rate} runs/s`, cpuPerRun, rate === JUDGED_CPU_RATE, baseline));
        if (windows.length > 0) {
          statements = breakdownPerRun(`at ${rate} runs/s`, sumWindows(windows), rate * seconds * windows.length);
        }
      }
      if (essential) {
        figures.push(
          {
            scenario: 'end-to-end',
            metric: `essential work: runs that failed (create not 201, or no first event) at ${JUDGED_CPU_RATE} runs/s`,
            value: essential.failed,
            unit: 'count',
          },
          {
            scenario: 'end-to-end',
            metric: "events per run (the events stream's messages over its runs' subjects, every run of the bench so far)",
            value: round(await eventsPerRunOf(env.natsUrl, new StreamNames(namespace).eventsStream), 2),
            unit: 'events',
            baseline: { what: "the essential program's", value: round(essential.eventsPerRun, 2) },
          },
        );
      }
    }
    if (only.has('fanout')) {
      const lineRecorder = await logLineAppender(env.natsUrl, namespace);
      try {
        for (const size of fanOutSizes) {
          figures.push(
            ...(await fanOut(
              relayUrl,
              token,
              { pid: stack.processes.get('stream-relay')!.pid!, inspectPort: relayInspectPort },
              size,
              async () => {
                const id = await createRun({ SIM_DURATION_MS: '600000' });
                await waitUntil(async () => (await stateOf(id)) === 'running');
                return { runId: id, appendEvent: await lineRecorder.prepare('bench', id) };
              },
            )),
          );
        }
      } finally {
        await lineRecorder.close();
      }
    }
    if (only.has('projection')) {
      const backlog = Number(process.env['BENCH_PROJECTION_EVENTS'] ?? '100000');
      figures.push(
        ...(await projectionCatchUp(
          env.natsUrl,
          env.databaseUrl,
          backlog,
          Number(process.env['BENCH_PROJECTION_RATE'] ?? '1000'),
          seconds,
        )),
      );
    }
    if (only.has('projection-floor')) {
      const batches = Number(process.env['BENCH_PROJECTION_FLOOR_BATCHES'] ?? '2000');
      figures.push(...(await projectionWriteFloor(env.databaseUrl, { batches })));
    }
    const resumeTotal = Number(process.env['BENCH_RESUME_EVENTS'] ?? '1000000');
    if (only.has('resume') && resumeTotal > 0) {
      const names = new StreamNames(namespace);
      figures.push(
        ...(await resumeCost(
          relayUrl,
          token,
          env.natsUrl,
          { eventsStream: names.eventsStream, subject: (id) => names.runEvents('bench', id) },
          resumeTotal,
        )),
      );
    }
    if (only.has('quiet')) {
      const pids = new Map([...stack.processes].flatMap(([name, child]) => (child.pid ? [[name, child.pid] as const] : [])));
      const servers = serversOf(env);
      const counts = async (among?: readonly string[]): Promise<{ unfinished: number; running: number }> => {
        const [row] = (await db.query(
          `SELECT count(*) FILTER (WHERE NOT terminal) AS unfinished, count(*) FILTER (WHERE state = 'running') AS running FROM runs
           WHERE $1::uuid[] IS NULL OR id = ANY($1::uuid[])`,
          [among ?? null],
        )) as { unfinished: string; running: string }[];
        return { unfinished: Number(row?.unfinished ?? 0), running: Number(row?.running ?? 0) };
      };
      figures.push(
        ...(await quietRunsCost(
          { apiUrl, token, counts, cpu: () => new CpuUsage(pids, servers) },
          Number(process.env['BENCH_QUIET_RUNS'] ?? '1000'),
          seconds,
        )),
      );
    }
    if (only.has('labels')) {
      const runs = Number(process.env['BENCH_LABEL_RUNS'] ?? '1000000');
      // Into the stack's schema and workspace, so the api is timed too; last, as its million runs stay.
      const api = { url: apiUrl, token, workspace: 'bench', schema: namespace };
      figures.push(...(await labelFilterPage(env.databaseUrl, runs, Number(process.env['BENCH_LABEL_SAMPLES'] ?? '500'), api)));
    }
  } finally {
    await floor?.stop();
    await statementStats?.close();
    await db.destroy();
    await stack.stop();
    if (cpuProfDir) {
      mkdirSync(cpuProfDir, { recursive: true });
      writeFileSync(join(cpuProfDir, 'services.json'), JSON.stringify(Object.fromEntries(profiled), null, 2));
    }
  }
  console.log(
    writeResults(join(root, 'bench-results'), figures, seconds, loadAtStart, serversLine(env, privateServers?.started), statements),
  );
  if (!privateServers) {
    await cleanUp(env.natsUrl, env.databaseUrl, namespace);
  }
  process.exit(0); // private servers: the exit stops them and removes their data
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
