import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { migrate, openDatabase } from '@wrs/persistence';
import { RunProjection, type DeliveredEvent } from './run-projection';

const at = (s: number): string => new Date(Date.UTC(2026, 10, 25, 10, 0, s)).toISOString();
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

/** `runs` runs of five events each (created with labels, dispatched, started, two log lines), interleaved as JetStream would sequence them. */
function batchOf(runs: number): DeliveredEvent[] {
  const runIds = Array.from({ length: runs }, () => randomUUID());
  const kinds = (runId: string, r: number): RunEvent[] => [
    {
      type: 'run.created',
      data: {
        runId,
        workspaceId: 'ws',
        workload: { image: 'busybox', labels: { team: `t${r % 3}`, env: 'prod' } },
        provider: 'auto',
        region: 'auto',
        idempotencyKey: runId,
        at: at(0),
      },
    },
    { type: 'run.dispatched', data: { placement, at: at(1) } },
    { type: 'run.started', data: { at: at(2) } },
    { type: 'run.log', data: { index: 0, stream: 'stdout', line: 'one', at: at(3) } },
    { type: 'run.log', data: { index: 1, stream: 'stderr', line: 'two', at: at(4) } },
  ];
  const seqOf = (k: number, r: number): number => 1 + k * runs + r;
  return [0, 1, 2, 3, 4].flatMap((k) =>
    runIds.map((runId, r) => ({ runId, seq: seqOf(k, r), previous: k === 0 ? 0 : seqOf(k - 1, r), event: kinds(runId, r)[k]! })),
  );
}

/**
 * Counts the statements sent on the data source's connections, whichever way they are sent (TypeORM's
 * own queries and the driver's client alike): every query runner's client is wrapped when it connects.
 */
function countStatements(db: DataSource): { count: number } {
  const counter = { count: 0 };
  const wrapped = new WeakSet<object>();
  const createQueryRunner = db.createQueryRunner.bind(db);
  db.createQueryRunner = (...args) => {
    const runner = createQueryRunner(...args);
    const connect = runner.connect.bind(runner);
    runner.connect = async () => {
      const client = (await connect()) as { query: (...query: unknown[]) => unknown };
      if (!wrapped.has(client)) {
        wrapped.add(client);
        const query = client.query.bind(client);
        client.query = (...query2: unknown[]) => {
          counter.count++;
          return query(...query2);
        };
      }
      return client;
    };
    return runner;
  };
  return counter;
}

/** Every column of the runs' rows in the projection's tables but `updated_at`, in a stable order. */
async function tables(db: DataSource, runIds: readonly string[]): Promise<unknown[]> {
  return [
    await db.query(
      `SELECT id, workspace_id, state, terminal, version, state_version, body, created_at FROM runs WHERE id = ANY($1::uuid[]) ORDER BY id`,
      [runIds],
    ),
    await db.query(`SELECT * FROM run_events WHERE run_id = ANY($1::uuid[]) ORDER BY run_id, seq`, [runIds]),
    await db.query(`SELECT * FROM run_labels WHERE run_id = ANY($1::uuid[]) ORDER BY run_id, label`, [runIds]),
  ];
}

describe('RunProjection batches against real Postgres', () => {
  let env: IsolatedEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase({ ...env.database, poolSize: 2 });
  });

  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  it('writes a batch in one transaction of the same few statements whatever its events and runs', async () => {
    const counter = countStatements(db);
    const projection = new RunProjection(db);
    const statements: number[] = [];
    for (const runs of [4, 80]) {
      const batch = batchOf(runs);
      counter.count = 0;
      await projection.projectBatch([...batch, ...batch.slice(0, runs)]);
      statements.push(counter.count);
      // Every row the batch wrote carries one transaction id.
      const writers: { xid: string }[] = await db.query(
        `SELECT DISTINCT xmin::text AS xid FROM (
           SELECT xmin FROM runs WHERE id = ANY($1::uuid[])
           UNION ALL SELECT xmin FROM run_events WHERE run_id = ANY($1::uuid[])
           UNION ALL SELECT xmin FROM run_labels WHERE run_id = ANY($1::uuid[])
         ) AS written`,
        [[...new Set(batch.map((e) => e.runId))]],
      );
      expect(writers).toHaveLength(1);
    }
    // 20 events of 4 runs and 400 of 80: begin, lock, store and read, write rows and labels, commit.
    expect(statements).toEqual([5, 5]);
  });

  it('writes nothing of a batch that fails part way, and the same batch without its bad event is then written whole', async () => {
    const projection = new RunProjection(db);
    const batch = batchOf(3);
    // A creation time that is no time: stored as an event, then refused when its row is written.
    const bad = batchOf(1).map((e): DeliveredEvent =>
      e.event.type === 'run.created' ? { ...e, event: { ...e.event, data: { ...e.event.data, at: 'not a time' } } } : e,
    );
    const runIds = [...new Set([...batch, ...bad].map((e) => e.runId))];
    await expect(projection.projectBatch([...batch, ...bad])).rejects.toThrow();
    const left: { n: string }[] = await db.query(
      `SELECT (SELECT count(*) FROM run_events WHERE run_id = ANY($1::uuid[])) + (SELECT count(*) FROM runs WHERE id = ANY($1::uuid[])) AS n`,
      [runIds],
    );
    expect(Number(left[0]!.n)).toBe(0);
    const projected = await projection.projectBatch(batch);
    expect(projected.map((p) => p.appliedSeqs.length)).toEqual([5, 5, 5]);
  });

  describe('redelivered after part of it was committed', () => {
    let reference: IsolatedEnvironment;
    let referenceDb: DataSource;

    beforeAll(async () => {
      reference = await isolatedEnvironment();
      await migrate(reference.database);
      referenceDb = await openDatabase({ ...reference.database, poolSize: 1 });
    });

    afterAll(async () => {
      await referenceDb.destroy();
      await reference.cleanup();
    });

    it('stores every row as one delivery of the batch would, and reports only the events not committed before as applied', async () => {
      const batch = batchOf(6);
      // A worker committed every other event of the batch (holes included) and died before its ack.
      const committedBefore = batch.filter((_, i) => i % 2 === 0);
      const runIds = [...new Set(batch.map((e) => e.runId))];
      const projection = new RunProjection(db);
      await projection.projectBatch(committedBefore);
      const redelivered = await projection.projectBatch(batch);
      await new RunProjection(referenceDb).projectBatch(batch);

      expect(redelivered.flatMap((p) => p.appliedSeqs.map((seq) => `${p.runId}:${seq}`)).sort()).toEqual(
        batch
          .filter((_, i) => i % 2 === 1)
          .map((e) => `${e.runId}:${e.seq}`)
          .sort(),
      );
      expect(await tables(db, runIds)).toEqual(await tables(referenceDb, runIds));
      // A third delivery changes nothing.
      const again = await projection.projectBatch(batch);
      expect(again.flatMap((p) => p.appliedSeqs)).toEqual([]);
      expect(await tables(db, runIds)).toEqual(await tables(referenceDb, runIds));
    });
  });
});
