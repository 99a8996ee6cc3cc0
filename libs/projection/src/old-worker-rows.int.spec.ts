import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@wrs/domain';
import { migrate, openDatabase, RunQueries } from '@wrs/persistence';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { RunProjection } from './run-projection';

const at = '2026-11-25T08:00:00.000Z';
const log = (index: number): RunEvent => ({ type: 'run.log', data: { index, stream: 'stdout', line: 'x', at } });

/** During a rolling upgrade, rows written by a worker of the previous version have no state_version. */
describe('the projection on rows an old worker wrote, against real Postgres', () => {
  let env: IsolatedEnvironment;

  beforeAll(async () => {
    env = await isolatedEnvironment();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it("a row an old worker inserts (no state_version) is read with the one its events give, and this version's projection stores it", async () => {
    await migrate(env.database);
    const db = await openDatabase(env.database);
    const runId = randomUUID();
    try {
      const created: RunEvent = {
        type: 'run.created',
        data: { runId, workspaceId: 'ws', workload: { image: 'x' }, provider: 'auto', region: 'auto', idempotencyKey: 'k2', at },
      };
      await db.query(
        `INSERT INTO run_events (run_id, seq, previous, type, event) VALUES ($1, 30, 0, 'run.created', $2), ($1, 31, 30, 'run.log', $3)`,
        [runId, JSON.stringify(created), JSON.stringify(log(0))],
      );
      const body = { runId, workspaceId: 'ws', state: 'queued', logLines: 1, createdAt: at };
      await db.query(
        `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, updated_at) VALUES ($1, 'ws', 'queued', false, 31, $2, $3, now())`,
        [runId, JSON.stringify(body), at],
      );
      expect(await new RunQueries(db).find('ws', runId)).toMatchObject({ version: 31, stateVersion: 30 });
      await new RunProjection(db).projectBatch([{ runId, seq: 33, previous: 31, event: log(1) }]);
      const rows: { state_version: string }[] = await db.query('SELECT state_version FROM runs WHERE id = $1', [runId]);
      expect(rows.map((r) => Number(r.state_version))).toEqual([30]);
      expect(await new RunQueries(db).find('ws', runId)).toMatchObject({ version: 33, stateVersion: 30, logLines: 2 });
    } finally {
      await db.destroy();
    }
  });
});
