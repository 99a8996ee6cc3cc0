import { randomUUID } from 'node:crypto';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { migrate, openDatabase } from './data-source';
import { runNamed } from './named-statement';
import { RunQueries } from './run-queries';
import { Workspaces } from './workspaces';

describe('named statements: prepared once per connection, answering like the plain query', () => {
  let env: IsolatedEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    // One connection, so the session that prepared the statement is the one asked about it.
    db = await openDatabase({ ...env.database, poolSize: 1 });
  });

  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  it('is prepared on the connection under its name, and each execution answers for its own values', async () => {
    const statement = { name: `wrs_test_${randomUUID().slice(0, 8)}`, text: 'SELECT $1::int * 2 AS doubled' };
    for (let i = 0; i < 8; i++) {
      // Past the fifth execution, where Postgres may switch to a generic plan.
      expect(await runNamed<{ doubled: number }>(db, statement, [i])).toEqual([{ doubled: i * 2 }]);
    }
    const prepared: { name: string; statement: string }[] = await db.query('SELECT name, statement FROM pg_prepared_statements');
    expect(prepared).toContainEqual({ name: statement.name, statement: statement.text });
  });

  it("answers after a migration changed the type of a column it reads (Postgres's 0A000)", async () => {
    const table = `named_${randomUUID().slice(0, 8)}`;
    await db.query(`CREATE TABLE ${table} (x int)`);
    await db.query(`INSERT INTO ${table} VALUES (21)`);
    const statement = { name: `wrs_test_${randomUUID().slice(0, 8)}`, text: `SELECT x FROM ${table}` };
    expect(await runNamed<{ x: number }>(db, statement)).toEqual([{ x: 21 }]);
    await db.query(`ALTER TABLE ${table} ALTER COLUMN x TYPE text`);
    expect(await runNamed<{ x: string }>(db, statement)).toEqual([{ x: '21' }]);
    await db.query(`DROP TABLE ${table}`);
  });

  it('answers after such a migration on a pool whose every connection had prepared the statement', async () => {
    const pooled = await openDatabase({ ...env.database, poolSize: 4 });
    const table = `named_${randomUUID().slice(0, 8)}`;
    try {
      await pooled.query(`CREATE TABLE ${table} (x int)`);
      await pooled.query(`INSERT INTO ${table} VALUES (21)`);
      const statement = { name: `wrs_test_${randomUUID().slice(0, 8)}`, text: `SELECT x, pg_sleep(0.05)::text AS slept FROM ${table}` };
      // Eight at once on four connections: each connection prepares it.
      await Promise.all(Array.from({ length: 8 }, () => runNamed(pooled, statement)));
      await pooled.query(`ALTER TABLE ${table} ALTER COLUMN x TYPE text`);
      // One at a time: pg's pool drops a connection whose query failed, so the retry lands on another
      // that prepared the statement before the migration too, and failed the same way.
      for (let i = 0; i < 6; i++) {
        expect((await runNamed<{ x: string }>(pooled, statement)).map((r) => r.x)).toEqual(['21']);
      }
      const answers = await Promise.all(Array.from({ length: 8 }, () => runNamed<{ x: string }>(pooled, statement)));
      expect(answers.map((rows) => rows.map((r) => r.x))).toEqual(Array.from({ length: 8 }, () => ['21']));
    } finally {
      await pooled.query(`DROP TABLE IF EXISTS ${table}`);
      await pooled.destroy();
    }
  });

  it("reads the connection's own schema (its search_path), not another data source's", async () => {
    const other = await isolatedEnvironment();
    await migrate(other.database);
    const otherDb = await openDatabase({ ...other.database, poolSize: 1 });
    try {
      await new Workspaces(otherDb).ensure('ws-only-there', 'Other');
      await otherDb.query(
        `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at, state_version)
         VALUES ($1, 'ws-only-there', 'running', false, 1, $2, now(), now(), 1)`,
        [randomUUID(), JSON.stringify({ placement: { provider: 'container', region: 'local' } })],
      );
      // The same statement names on both pools: each connection planned them against its own schema.
      expect(await new RunQueries(otherDb).placedCounts()).toEqual(new Map([['container/local', 1]]));
      expect(await new RunQueries(db).placedCounts()).toEqual(new Map());
    } finally {
      await otherDb.destroy();
      await other.cleanup();
    }
  });
});
