import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { migrate, openDatabase } from '@wrs/persistence';
import { RunProjection, type DeliveredEvent } from '@wrs/projection';
import { dropSchema } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import type { Figure } from '../scenarios';
import { round } from '../stats';
import { CREATE_PK_ONLY_TABLE, RawRunWrites, type RawWrites } from './raw-run-writes';
import { runPipeline } from './run-pipeline';

type Writer = 'projection' | RawWrites;

const WRITERS: readonly Writer[] = ['projection', 'events-and-rows', 'rows', 'rows-pk-only'];

const WHAT: Record<Writer, string> = {
  projection: 'the projection (advisory locks, store the events and read the rows, fold, write the rows)',
  'events-and-rows': 'the same events and rows by raw SQL (events insert and runs upsert, nothing locked or read)',
  rows: 'the runs upsert alone (no events table)',
  'rows-pk-only': 'the upsert into a copy of runs with its primary key only (no secondary index, no trigger)',
};

export interface ProjectionFloorOptions {
  /** Batches measured per writer. */
  readonly batches: number;
  /** Pipeline steps written per writer before measuring (runs already in the tables, as in a deployment). */
  readonly prefillSteps?: number;
  readonly warmUpBatches?: number;
  /** The schema the run makes and drops (a new one by default). */
  readonly schema?: string;
  /** Whether the backend is a process here (tests replace it). */
  readonly backendHere?: (pid: number, clientPort: number) => boolean;
}

/**
 * Where the projection's Postgres CPU goes, against the floor of the writes it makes: the same batches
 * (four events of four runs, as at 100 runs/s) written by the projection and by raw statements that
 * store the same, then less (no events table, then no secondary index), taking turns batch by batch on
 * one connection, so each is charged its own backend CPU (`/proc/<pid>/schedstat`) in the same minute.
 * Needs the Postgres server on this machine; otherwise it says so and gives no figures.
 */
export async function projectionWriteFloor(
  databaseUrl: string,
  {
    batches,
    prefillSteps = 2_560,
    warmUpBatches = 200,
    schema = `benchfloor${randomUUID().slice(0, 6)}`,
    backendHere = isBackendHere,
  }: ProjectionFloorOptions,
): Promise<Figure[]> {
  const database = { url: databaseUrl, schema };
  let db: DataSource | undefined;
  try {
    await migrate(database);
    db = await openDatabase({ ...database, poolSize: 1 });
    const [{ pid, port }] = (await db.query('SELECT pid, client_port AS port FROM pg_stat_activity WHERE pid = pg_backend_pid()')) as [
      { pid: number; port: number },
    ];
    if (!backendHere(pid, port)) {
      console.error(
        'projection floor: skipped, its backend CPU cannot be read: the Postgres server is not a process of this machine, ' +
          'or the bench reaches it by a Unix socket (give it a TCP URL)',
      );
      return [];
    }
    await db.query(CREATE_PK_ONLY_TABLE);
    const write = writersOn(db);
    const pipelines = new Map(WRITERS.map((w) => [w, runPipeline()] as const));
    for (const writer of WRITERS) {
      const pipeline = pipelines.get(writer)!;
      for (let step = 0; step < prefillSteps; step += 64) {
        await write(writer, Array.from({ length: 64 }, () => pipeline.next().value).flat());
      }
    }
    await db.query(`ANALYZE runs, run_events, run_labels, runs_pk_only`);
    const cpuNs = new Map<Writer, number>(WRITERS.map((w) => [w, 0]));
    for (let i = 0; i < warmUpBatches + batches; i++) {
      // Each writer goes first in turn: work Postgres leaves for later is charged to each alike.
      for (const writer of [...WRITERS.slice(i % WRITERS.length), ...WRITERS.slice(0, i % WRITERS.length)]) {
        const batch = pipelines.get(writer)!.next().value;
        const before = backendCpuNs(pid);
        await write(writer, batch);
        if (i >= warmUpBatches) {
          cpuNs.set(writer, cpuNs.get(writer)! + backendCpuNs(pid) - before);
        }
      }
    }
    return floorFigures(new Map(WRITERS.map((w) => [w, cpuNs.get(w)! / 1e6 / batches] as const)), batches);
  } finally {
    await db?.destroy();
    await dropSchema(databaseUrl, schema);
  }
}

function writersOn(db: DataSource): (writer: Writer, batch: readonly DeliveredEvent[]) => Promise<void> {
  const projection = new RunProjection(db);
  const raw = new Map((['events-and-rows', 'rows', 'rows-pk-only'] as const).map((w) => [w, new RawRunWrites(db, w)] as const));
  return async (writer, batch) => {
    if (writer === 'projection') {
      await projection.projectBatch(batch);
    } else {
      await raw.get(writer)!.write(batch);
    }
  };
}

/**
 * Whether `pid` on this machine is the backend serving our connection: its title names our client port.
 * A server in a container or elsewhere has pids of its own, which may name some other process here.
 */
function isBackendHere(pid: number, clientPort: number): boolean {
  const cmdline = `/proc/${pid}/cmdline`;
  return existsSync(cmdline) && readFileSync(cmdline, 'utf8').includes(`(${clientPort})`);
}

/** The time the process has spent on a CPU, in ns (the scheduler's own count, not sampled ticks). */
function backendCpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

/** Each writer's backend CPU per batch, each set against the next one down (what the step between them costs). */
export function floorFigures(msPerBatch: ReadonlyMap<Writer, number>, batches: number): Figure[] {
  return WRITERS.map((writer, i): Figure => {
    const value = msPerBatch.get(writer) ?? Number.NaN;
    const below = WRITERS[i + 1];
    const baseline = below === undefined ? undefined : msPerBatch.get(below);
    return {
      scenario: 'projection floor',
      metric: `Postgres backend CPU per batch of 4 events of 4 runs (${batches} batches each, taking turns): ${WHAT[writer]}`,
      value: round(value, 4),
      unit: 'ms',
      ...(below === undefined || baseline === undefined
        ? {}
        : { baseline: { what: WHAT[below], value: round(baseline, 4) }, ratio: round(value / baseline, 3) }),
    };
  });
}
