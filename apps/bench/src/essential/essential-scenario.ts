import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { CpuUsage } from '../cpu-usage';
import { perRun } from '../cpu-per-run';
import { AFTER_WINDOW_MS, steadyRuns } from '../end-to-end-scenario';
import { EssentialNames } from './essential-names';
import { ESSENTIAL_SSE_READS, type EssentialSseRead } from './essential-relay';
import { startEssential, type EssentialEnv, type EssentialProcesses } from './essential-process';
import { measureEssentialLoads, type EssentialLoadPlan, type EssentialLoads } from './essential-loads';

const NANOS_PER_MS = 1_000_000;

/** What the essential program did over its measurements. */
export interface EssentialMeasured {
  /** Per measurement, CPU ms per run by part: its three processes, NATS, Postgres, the load generator. */
  readonly cpuPerRun: Map<string, number>[];
  /** Runs whose create was not a 201 or whose stream gave no first event, over all measurements. */
  readonly failed: number;
  /** The events its stream holds per run (messages over subjects): a simulated run of the stack's has as many. */
  readonly eventsPerRun: number;
  /** How its relay read the runs' events. */
  readonly sseRead: EssentialSseRead;
  /** Its api's create and read under our create's and read's loads, those planned; none if they failed. */
  readonly loads?: EssentialLoads;
}

/**
 * BENCH_ESSENTIAL_SSE: how the essential relay reads a run's events (essential-relay.ts); `direct`, the
 * cheapest of the three here (CPU per run at 100 runs/s with an earlier worker of two consumers, 18:08-18:22 UTC: direct
 * 10.16 ms, stored 11.02, ordered 11.84), unless it says otherwise.
 */
export function essentialSseRead(setting: string | undefined): EssentialSseRead {
  const read = (setting ?? 'direct') as EssentialSseRead;
  if (!ESSENTIAL_SSE_READS.includes(read)) {
    throw new Error(`BENCH_ESSENTIAL_SSE=${setting}: one of ${ESSENTIAL_SSE_READS.join(', ')}`);
  }
  return read;
}

/** A run events stream's messages over its subjects (one per run): the events per run. */
export async function eventsPerRunOf(natsUrl: string, stream: string): Promise<number> {
  const nc = await connect({ servers: natsUrl });
  try {
    const state = (await (await jetstreamManager(nc)).streams.info(stream)).state;
    return state.messages / Math.max(1, state.num_subjects ?? 0);
  } finally {
    await nc.close();
  }
}

/**
 * The essential work of a run on the same parts, measured as endToEnd measures ours: the essential
 * program (essential-process.ts) on streams and a table of its own, driven by the same load (a second
 * of warm-up, then `seconds` at `perSecond`: POST, then the event stream until its first event), CPU
 * over the same window and the same time after it, `measurements` times. Redis is left out (it does
 * not use it). Then, with `loadPlan`, its api's create and read under our create's and read's loads
 * (essential-loads.ts), after the CPU windows so they do not disturb them. Its streams and table are
 * removed afterwards; `started` hands over the processes so a signal to the bench can stop them.
 */
export async function measureEssential(
  distDir: string,
  env: EssentialEnv,
  token: string,
  servers: ReadonlyMap<string, number>,
  perSecond: number,
  seconds: number,
  measurements: number,
  started: (processes: EssentialProcesses | undefined) => void,
  nodeArgs: readonly string[] = [],
  loadPlan?: EssentialLoadPlan,
): Promise<EssentialMeasured> {
  const names = new EssentialNames(env.namespace, env.schema);
  const nc = await connect({ servers: env.natsUrl });
  const jsm = await jetstreamManager(nc, { timeout: 60_000 });
  const pg = new Client({ connectionString: env.databaseUrl });
  await pg.connect();
  let processes: EssentialProcesses | undefined;
  try {
    // As the stack's events and commands streams (streamConfigs in @wrs/messaging), R1; direct gets allowed when its relay reads with them.
    const common = { storage: StorageType.File, retention: RetentionPolicy.Limits, discard: DiscardPolicy.Old, num_replicas: 1 };
    await jsm.streams.add({
      ...common,
      name: names.eventsStream,
      subjects: [names.allRunEvents()],
      duplicate_window: 120_000 * NANOS_PER_MS,
      allow_direct: env.sseRead === 'direct',
    });
    await jsm.streams.add({
      ...common,
      name: names.claimsStream,
      subjects: [names.allClaims()],
      max_age: 24 * 3600_000 * NANOS_PER_MS,
      duplicate_window: 120_000 * NANOS_PER_MS,
    });
    await pg.query(
      `CREATE TABLE IF NOT EXISTS ${names.table} (
         id uuid PRIMARY KEY, workspace_id text NOT NULL, state text NOT NULL, version bigint NOT NULL,
         created jsonb, updated_at timestamptz NOT NULL)`,
    );
    processes = await startEssential(distDir, nodeArgs, env);
    started(processes);
    const cpuPerRun: Map<string, number>[] = [];
    let failed = 0;
    let runs = 0;
    const pids = processes.pids;
    for (let i = 0; i < measurements; i++) {
      const warm = await steadyRuns(processes.apiUrl, processes.relayUrl, token, perSecond, perSecond);
      const cpu = new CpuUsage(pids, servers);
      const measured = await steadyRuns(processes.apiUrl, processes.relayUrl, token, perSecond, perSecond * seconds);
      await new Promise((r) => setTimeout(r, AFTER_WINDOW_MS));
      const used = cpu.since();
      used.delete('redis-server');
      cpuPerRun.push(perRun(used, perSecond * seconds));
      failed += warm.failed + measured.failed;
      runs += perSecond * (seconds + 1);
    }
    const eventsPerRun = await eventsPerRunOf(env.natsUrl, names.eventsStream);
    const rows = Number(
      ((await pg.query(`SELECT count(*) AS n FROM ${names.table} WHERE state = 'succeeded'`)).rows[0] as { n: string }).n,
    );
    if (rows < runs - failed) {
      console.error(`essential: ${rows} of ${runs - failed} runs projected as succeeded`);
    }
    // A failed load leaves create and read without the essential rows; CPU per run keeps its baseline.
    const loads =
      loadPlan && (loadPlan.create || loadPlan.read)
        ? await measureEssentialLoads(processes, token, nc, pg, names, loadPlan).catch((error: unknown) => {
            console.error(`the essential create and read failed, create and read go without them: ${String(error)}`);
            return undefined;
          })
        : undefined;
    return { cpuPerRun, failed, eventsPerRun, sseRead: env.sseRead, ...(loads ? { loads } : {}) };
  } finally {
    await processes?.stop();
    started(undefined);
    for (const name of [names.eventsStream, names.claimsStream]) {
      await jsm.streams.delete(name).catch(() => false);
    }
    await pg.query(`DROP TABLE IF EXISTS ${names.table}`).catch(() => undefined);
    await pg.end();
    await nc.close();
  }
}
