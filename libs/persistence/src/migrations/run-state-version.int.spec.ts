import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { migrate, openDatabase } from '../data-source';
import { RunStateVersion1763700000006 } from './1763700000006-run-state-version';
import { RunQueries } from '../run-queries';

const at = '2026-11-25T08:00:00.000Z';
const log = (index: number): RunEvent => ({ type: 'run.log', data: { index, stream: 'stdout', line: 'x', at } });

/**
 * Rows projected by the previous version get their state version from the events they had folded, and
 * so do rows a worker of the previous version writes during a rolling upgrade (this version's projection
 * on such rows: libs/projection's old-worker-rows.int.spec.ts).
 */
describe('migration 1763700000006 (runs.state_version) against real Postgres', () => {
  let env: IsolatedEnvironment;

  beforeAll(async () => {
    env = await isolatedEnvironment();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it("sets each existing row's state_version to its last state-changing event up to its version", async () => {
    await migrate(env.database);
    const db = await openDatabase(env.database);
    const runId = randomUUID();
    const body = { runId, workspaceId: 'ws', state: 'running', logLines: 2, createdAt: at };
    try {
      // The database as the previous version left it: no column, the migration not applied.
      const runner = db.createQueryRunner();
      await new RunStateVersion1763700000006().down(runner);
      await runner.release();
      await db.query(`DELETE FROM typeorm_migrations WHERE name = 'RunStateVersion1763700000006'`);
      const events: [number, RunEvent][] = [
        [
          10,
          {
            type: 'run.created',
            data: { runId, workspaceId: 'ws', workload: { image: 'x' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at },
          },
        ],
        [12, { type: 'run.dispatched', data: { placement: { provider: 'simulator', region: 'r', reason: 'x', candidates: [] }, at } }],
        [15, { type: 'run.started', data: { at } }],
        [17, log(0)],
        [19, log(1)],
        // Stored but not yet folded into the row (beyond its version): it does not count.
        [23, { type: 'run.succeeded', data: { exitCode: 0, at } }],
      ];
      for (const [seq, event] of events) {
        await db.query(`INSERT INTO run_events (run_id, seq, previous, type, event) VALUES ($1, $2, NULL, $3, $4)`, [
          runId,
          seq,
          event.type,
          JSON.stringify(event),
        ]);
      }
      await db.query(
        `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at) VALUES ($1, 'ws', 'running', false, 19, $2, $3, now())`,
        [runId, JSON.stringify(body), at],
      );
    } finally {
      await db.destroy();
    }
    expect(await migrate(env.database)).toEqual(['RunStateVersion1763700000006']);
    const reopened = await openDatabase(env.database);
    try {
      expect(await new RunQueries(reopened).find('ws', runId)).toMatchObject({ version: 19, stateVersion: 15 });
      // A worker of the previous version, still running during the upgrade, folds the run's end in
      // with its own statement (no state_version): the row's state version follows all the same.
      await reopened.query(
        `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at)
         SELECT id, workspace_id, state, terminal, version, body, created_at, now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::jsonb[], $7::timestamptz[])
           AS t(id, workspace_id, state, terminal, version, body, created_at)
         ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, terminal = EXCLUDED.terminal,
           version = EXCLUDED.version, body = EXCLUDED.body, updated_at = now()`,
        [[runId], ['ws'], ['succeeded'], [true], [23], [JSON.stringify({ ...body, state: 'succeeded' })], [at]],
      );
      expect(await new RunQueries(reopened).find('ws', runId)).toMatchObject({ state: 'succeeded', version: 23, stateVersion: 23 });
    } finally {
      await reopened.destroy();
    }
  });
});
