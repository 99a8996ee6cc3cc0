import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@wrs/domain';
import { migrate, openDatabase } from '@wrs/persistence';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { Client } from 'pg';
import { PROJECTION_PLANNING } from './projection-planning';
import { beginWith, type Statement } from './projection-sql';
import { EVENTS_AFTER, ROWS, STORE_AND_READ, WRITE_RUNS } from './run-projection-store';
import { RunProjection } from './run-projection';

/**
 * The plan the projection keeps for each statement (a generic one, PROJECTION_PLANNING) must probe the
 * indexes whatever the statistics said when it was made: a plan kept from a table's first minutes
 * that scans it whole would scan it whole for every batch once it is large.
 */
describe("the projection's kept plans, against real Postgres", () => {
  let env: IsolatedEnvironment;
  let client: Client;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    client = new Client({ connectionString: env.databaseUrl, options: `-c search_path=${env.schema}` });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await env.cleanup();
  });

  /** The generic plan of `statement` under `settings`, as text (EXPLAIN of a prepared statement; nothing runs). */
  async function keptPlan(statement: Statement, types: string, settings: readonly string[]): Promise<string> {
    await client.query(beginWith(settings));
    try {
      await client.query(`PREPARE planned (${types}) AS ${statement.text}`);
      const args = types.split(',').map(() => 'NULL');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE planned (${args.join(', ')})`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query('ROLLBACK');
      await client.query('DEALLOCATE ALL'); // a prepared statement outlives its transaction
    }
  }

  const statements: [string, Statement, string][] = [
    ['store and read', STORE_AND_READ, 'uuid[], jsonb'],
    ['events after', EVENTS_AFTER, 'uuid[], bigint[]'],
    ['rows', ROWS, 'uuid[]'],
    ['write runs', WRITE_RUNS, 'jsonb, text[], text[], timestamptz[], uuid[]'],
  ];

  /** Every scan of a table is an index probe by the run's id: no sequential scan, no index walked whole. */
  function expectProbesOnly(plan: string): void {
    expect(plan).not.toMatch(/Seq Scan on (runs|run_events|run_labels)/);
    const scans = [...plan.matchAll(/Index (?:Only )?Scan (?:Backward )?using \S+ on (runs|run_events)[^\n]*\n([^\n]*)/g)];
    for (const [, table, next] of scans) {
      expect(next).toMatch(table === 'runs' ? /Index Cond: \(+id = / : /Index Cond: \(+run_id = /);
    }
  }

  it.each(statements)('%s: on tables never analysed', async (_name, statement, types) => {
    expectProbesOnly(await keptPlan(statement, types, PROJECTION_PLANNING));
  });

  it("the projection's transactions plan each statement once and keep it (no custom plan per batch)", async () => {
    const db = await openDatabase({ ...env.database, poolSize: 1 });
    try {
      const projection = new RunProjection(db);
      for (let seq = 1; seq <= 12; seq++) {
        const event = createdEvent();
        await projection.projectBatch([{ runId: event.data.runId, seq, previous: 0, event }]);
      }
      const plans = (await db.query(
        `SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
          WHERE name LIKE 'wrs\\_projection\\_%' ORDER BY name`,
      )) as { generic: number; custom: number }[];
      expect(plans).toEqual(
        ['wrs_projection_lock', 'wrs_projection_store_and_read', 'wrs_projection_write_runs'].map((name) => ({
          name,
          generic: 12,
          custom: 0,
        })),
      );
    } finally {
      await db.destroy();
      await client.query('TRUNCATE runs, run_events, run_labels');
    }
  });

  describe('on tables analysed when they held a few rows (the statistics a new deployment starts with)', () => {
    beforeAll(async () => {
      const db = await openDatabase({ ...env.database, poolSize: 1 });
      try {
        const projection = new RunProjection(db);
        for (let seq = 1; seq <= 3; seq++) {
          const event = createdEvent();
          await projection.project(event.data.runId, seq, event, 0);
        }
      } finally {
        await db.destroy();
      }
      await client.query('ANALYZE runs, run_events, run_labels');
    });

    it.each(statements)('%s', async (_name, statement, types) => {
      expectProbesOnly(await keptPlan(statement, types, PROJECTION_PLANNING));
    });

    it('the store and read would scan them whole without sequential scans ruled out (what that setting is for)', async () => {
      const plan = await keptPlan(
        STORE_AND_READ,
        'uuid[], jsonb',
        PROJECTION_PLANNING.filter((s) => !s.startsWith('enable_seqscan')),
      );
      expect(plan).toMatch(/Seq Scan on (runs|run_events)/);
    });
  });
});

function createdEvent(): Extract<RunEvent, { type: 'run.created' }> {
  const runId = randomUUID();
  return {
    type: 'run.created',
    data: {
      runId,
      workspaceId: 'ws',
      workload: { image: 'busybox' },
      provider: 'auto',
      region: 'auto',
      idempotencyKey: runId,
      at: '2026-11-27T14:00:00.000Z',
    },
  };
}
