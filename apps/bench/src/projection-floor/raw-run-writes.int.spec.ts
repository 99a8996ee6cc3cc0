import { join } from 'node:path';
import { migrate, openDatabase } from '@wrs/persistence';
import { Client } from 'pg';
import { RunProjection, type DeliveredEvent } from '@wrs/projection';
import { executableMissing, isolatedEnvironment, itNeeding, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { POSTGRES_BIN, startPrivateServers } from '../private-servers';
import { projectionWriteFloor } from './projection-floor-scenario';
import { CREATE_PK_ONLY_TABLE, PK_ONLY_TABLE, RawRunWrites } from './raw-run-writes';
import { runPipeline } from './run-pipeline';

describe("the projection floor's raw writes, against real Postgres", () => {
  let env: IsolatedEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase({ ...env.database, poolSize: 2 });
    await db.query(CREATE_PK_ONLY_TABLE);
  });

  afterAll(async () => {
    await db?.destroy();
    await env.cleanup();
  });

  const rowsOf = async (table: string): Promise<unknown[]> =>
    db.query(`SELECT id, workspace_id, state, terminal, version, state_version, body, created_at FROM ${table} ORDER BY id`);

  it('store what the projection stores: the same events and the same rows, batch for batch', async () => {
    const pipeline = runPipeline();
    const batches: DeliveredEvent[][] = Array.from({ length: 12 }, () => pipeline.next().value);
    const projection = new RunProjection(db);
    for (const batch of batches) {
      await projection.projectBatch(batch);
    }
    const projectedRows = await rowsOf('runs');
    const projectedEvents = await db.query('SELECT run_id, seq, previous, type, event FROM run_events ORDER BY seq');
    expect(projectedRows.length).toBe(12);
    expect(projectedRows.filter((r) => (r as { terminal: boolean }).terminal).length).toBe(9);

    await db.query('TRUNCATE runs, run_events, run_labels');
    const raw = new RawRunWrites(db, 'events-and-rows');
    const pkOnly = new RawRunWrites(db, 'rows-pk-only');
    for (const batch of batches) {
      await raw.write(batch);
      await pkOnly.write(batch);
    }
    expect(await rowsOf('runs')).toEqual(projectedRows);
    expect(await db.query('SELECT run_id, seq, previous, type, event FROM run_events ORDER BY seq')).toEqual(projectedEvents);
    expect(await rowsOf(PK_ONLY_TABLE)).toEqual(projectedRows);
  });

  it("'rows' writes the rows and no event", async () => {
    await db.query(`TRUNCATE runs, run_events, run_labels`);
    const pipeline = runPipeline();
    const rowsOnly = new RawRunWrites(db, 'rows');
    for (let i = 0; i < 5; i++) {
      await rowsOnly.write(pipeline.next().value);
    }
    expect((await rowsOf('runs')).length).toBe(5);
    expect(await db.query('SELECT count(*)::int AS n FROM run_events')).toEqual([{ n: 0 }]);
  });

  // The bench's private servers: a Postgres whose backends are processes here, whatever serves this tier.
  itNeeding(
    executableMissing(join(POSTGRES_BIN, 'postgres'), 'apt-get install postgresql-15') ??
      executableMissing('/usr/sbin/nats-server', 'apt-get install nats-server') ??
      executableMissing('/usr/bin/redis-server', 'apt-get install redis-server'),
  )("measures each writer's backend CPU on a Postgres of this machine (the bench's private one) and leaves no schema behind", async () => {
    const servers = await startPrivateServers();
    try {
      const schema = `${env.schema}floor`;
      const figures = await projectionWriteFloor(servers.databaseUrl, { batches: 20, prefillSteps: 64, warmUpBatches: 5, schema });
      expect(figures.map((f) => f.metric.split(': ')[1])).toEqual([
        expect.stringMatching(/^the projection/),
        expect.stringMatching(/^the same events and rows by raw SQL/),
        expect.stringMatching(/^the runs upsert alone/),
        expect.stringMatching(/^the upsert into a copy of runs with its primary key only/),
      ]);
      for (const figure of figures) {
        expect(figure.value).toBeGreaterThan(0);
      }
      // Each ratio is its writer's figure over the next writer's.
      for (const [i, figure] of figures.slice(0, 3).entries()) {
        expect(figure.ratio).toBeCloseTo(figure.value / figures[i + 1]!.value, 2);
        expect(figure.baseline?.value).toBe(figures[i + 1]!.value);
      }
      const client = new Client({ connectionString: servers.databaseUrl });
      await client.connect();
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1`, [schema]);
      await client.end();
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      servers.stop();
    }
  });

  it('gives no figures for a Postgres whose backends are not processes of this machine', async () => {
    // The shared test server may be local too; a backend pid that names no process here is the case to decide.
    const figures = await projectionWriteFloor(env.databaseUrl, {
      batches: 1,
      prefillSteps: 0,
      warmUpBatches: 0,
      backendHere: () => false,
    });
    expect(figures).toEqual([]);
  });
});
