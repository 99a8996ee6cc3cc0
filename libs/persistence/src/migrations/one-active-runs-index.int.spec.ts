import { randomUUID } from 'node:crypto';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { migrate, openDatabase } from '../data-source';
import { ACTIVE_AFTER, ACTIVE_FIRST, RunQueries } from '../run-queries';
import { OneActiveRunsIndex1763700000009 } from './1763700000009-one-active-runs-index';

describe('migration 1763700000009: one index of unfinished runs by update, not two alike', () => {
  let env: IsolatedEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
  });

  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  // The definitions are read only for this schema's runs table, never inside a WHERE over pg_indexes: the planner
  // may then call pg_get_indexdef on other test runs' indexes while their schemas are dropped ("cache lookup failed").
  const runsIndexes = async (): Promise<{ indexname: string; indexdef: string }[]> =>
    db.query(
      `WITH own AS MATERIALIZED (SELECT indexrelid FROM pg_index WHERE indrelid = to_regclass(format('%I.runs', $1::text)))
       SELECT c.relname AS indexname, pg_get_indexdef(own.indexrelid) AS indexdef
         FROM own JOIN pg_class c ON c.oid = own.indexrelid ORDER BY c.relname`,
      [env.schema],
    );

  it('leaves runs one index on (updated_at) of its unfinished runs, and every other index as it was', async () => {
    const indexes = await runsIndexes();
    expect(indexes.filter((i) => i.indexdef.endsWith('(updated_at) WHERE (NOT terminal)')).map((i) => i.indexname)).toEqual([
      'runs_active',
    ]);
    expect(indexes.map((i) => i.indexname)).toEqual([
      'runs_active',
      'runs_pkey',
      'runs_workspace_active',
      'runs_workspace_created_id',
      'runs_workspace_idempotency_key',
      'runs_workspace_state_created_id',
    ]);
  });

  it('runs outside a transaction (CONCURRENTLY, so writes to runs go on meanwhile), and down brings the copy back', async () => {
    const runner = db.createQueryRunner();
    const activeIndexes = async (): Promise<string[]> =>
      (await runsIndexes()).filter((i) => i.indexdef.endsWith('(updated_at) WHERE (NOT terminal)')).map((i) => i.indexname);
    try {
      await runner.query(`SET search_path TO "${env.schema}"`);
      const migration = new OneActiveRunsIndex1763700000009();
      expect(migration.transaction).toBe(false);
      await migration.down(runner);
      expect(await activeIndexes()).toEqual(['runs_active', 'runs_active_by_update']);
      await migration.up(runner);
      expect(await activeIndexes()).toEqual(['runs_active']);
    } finally {
      await runner.release();
    }
  });

  it("serves the reconciler's walk: unfinished runs, least recently changed first, page by page to the last", async () => {
    const insert = (id: string, terminal: boolean, updatedAt: string): Promise<unknown> =>
      db.query(
        `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at, state_version)
         VALUES ($1, 'ws', $2, $3, 1, $4, now(), $5, 1)`,
        [
          id,
          terminal ? 'succeeded' : 'running',
          terminal,
          JSON.stringify({ runId: id, state: terminal ? 'succeeded' : 'running' }),
          updatedAt,
        ],
      );
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    // Two runs changed in the same microsecond: the walk orders them by id and skips neither.
    const [d, e] = [randomUUID(), randomUUID()].sort();
    await insert(a, false, '2026-11-25T10:00:02Z');
    await insert(b, true, '2026-11-25T10:00:00Z');
    await insert(c, false, '2026-11-25T10:00:01.000001Z');
    await insert(e!, false, '2026-11-25T10:00:03.123456Z');
    await insert(d!, false, '2026-11-25T10:00:03.123456Z');
    const queries = new RunQueries(db);
    expect((await queries.activePage(null, 10)).runs.map((r) => r.runId)).toEqual([c, a, d, e]);
    const walked: string[] = [];
    let page = await queries.activePage(null, 1);
    for (let pages = 1; page.next !== null; pages++) {
      expect(pages).toBeLessThan(10);
      walked.push(...page.runs.map((r) => r.runId));
      page = await queries.activePage(page.next, 1);
    }
    walked.push(...page.runs.map((r) => r.runId));
    expect(walked).toEqual([c, a, d, e]);
  });

  it('a pass of the walk ends while runs keep changing: a run changed after the pass began is read by the next pass', async () => {
    const queries = new RunQueries(db);
    // Finish what the other test left, so this pass holds only these runs.
    await db.query(`UPDATE runs SET terminal = true`);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const [i, id] of ids.entries()) {
      await db.query(
        `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at, state_version)
         VALUES ($1, 'ws', 'running', false, 1, $2, now(), $3, 1)`,
        [id, JSON.stringify({ runId: id, state: 'running' }), `2026-11-25T11:00:0${i}Z`],
      );
    }
    const first = await queries.activePage(null, 1);
    expect(first.runs.map((r) => r.runId)).toEqual([ids[0]]);
    // Every other run changes before the next page is read (what a projection of busy runs does), again and again.
    const walked = [...first.runs.map((r) => r.runId)];
    let page = first;
    for (let pages = 1; page.next !== null; pages++) {
      expect(pages).toBeLessThan(5);
      await db.query(`UPDATE runs SET updated_at = clock_timestamp() WHERE id <> $1 AND NOT terminal`, [ids[0]]);
      page = await queries.activePage(page.next, 1);
      walked.push(...page.runs.map((r) => r.runId));
    }
    expect(walked).toEqual([ids[0]]);
    const nextPass = await queries.activePage(null, 10);
    expect(nextPass.runs.map((r) => r.runId)).toEqual([ids[0], ids[1], ids[2]]);
    expect(nextPass.next).toBeNull();
  });

  it('the walk is served by the partial index on updated_at in its order, not a sort of every unfinished run', async () => {
    // Enough unfinished runs, with statistics, that the plan is the one a deployment gets.
    await db.query(
      `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at, state_version)
       SELECT gen_random_uuid(), 'ws-' || (i % 50), 'running', false, 1, '{}'::jsonb, now(), now() - i * interval '1 ms', 1
         FROM generate_series(1, 20000) AS i`,
    );
    await db.query('ANALYZE runs');
    for (const [statement, params] of [
      [ACTIVE_FIRST, [500]],
      [ACTIVE_AFTER, ['2000-01-01T00:00:00Z', randomUUID(), '2100-01-01T00:00:00Z', 500]],
    ] as const) {
      const [row] = (await db.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, [...params])) as { 'QUERY PLAN': unknown }[];
      const plan = JSON.stringify(row?.['QUERY PLAN']);
      expect(plan).toContain('"Index Name":"runs_active"');
      // Ordered by the index (updated_at), ties sorted within a group; a Sort node would read every unfinished run first.
      expect(plan).not.toContain('"Node Type":"Sort"');
    }
  });
});
