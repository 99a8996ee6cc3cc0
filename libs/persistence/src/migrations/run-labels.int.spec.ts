import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { migrate, openDatabase } from '../data-source';
import { RunQueries } from '../run-queries';
import { RunLabels1763700000007 } from './1763700000007-run-labels';

const at = '2026-11-25T08:00:00.000Z';
const created = (runId: string, labels?: Record<string, string>): RunEvent => ({
  type: 'run.created',
  data: {
    runId,
    workspaceId: 'ws',
    workload: { image: 'x', ...(labels ? { labels } : {}) },
    provider: 'auto',
    region: 'auto',
    idempotencyKey: runId,
    at,
  },
});

/** Runs projected before labels could be filtered are found by their labels once the migration ran; deleted runs take theirs along. */
describe('migration 1763700000007 (run_labels) against real Postgres', () => {
  let env: IsolatedEnvironment;

  beforeAll(async () => {
    env = await isolatedEnvironment();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it("copies the labels of runs projected before it, and a deleted run's labels go with it", async () => {
    await migrate(env.database);
    const db = await openDatabase(env.database);
    const [labelled, other, bare] = [randomUUID(), randomUUID(), randomUUID()];
    try {
      // The database as the previous version left it: no table, the migration not applied.
      const runner = db.createQueryRunner();
      await new RunLabels1763700000007().down(runner);
      await runner.release();
      await db.query(`DELETE FROM typeorm_migrations WHERE name = 'RunLabels1763700000007'`);
      for (const [runId, event] of [
        [labelled, created(labelled, { team: 'ml', 'example.com/tier': '' })],
        [other, created(other, { team: 'web' })],
        [bare, created(bare)],
      ] as const) {
        await db.query(
          `INSERT INTO runs (id, workspace_id, state, terminal, version, state_version, body, created_at, updated_at) VALUES ($1, 'ws', 'queued', false, 1, 1, $2, $3, now())`,
          [
            runId,
            JSON.stringify({
              runId,
              workspaceId: 'ws',
              state: 'queued',
              workload: event.type === 'run.created' ? event.data.workload : null,
              createdAt: at,
              logLines: 0,
            }),
            at,
          ],
        );
      }
    } finally {
      await db.destroy();
    }
    expect(await migrate(env.database)).toEqual(['RunLabels1763700000007']);
    const reopened = await openDatabase(env.database);
    try {
      const queries = new RunQueries(reopened);
      const ids = async (labels: { key: string; value: string }[]) =>
        (await queries.list('ws', { limit: 10, labels })).items.map((r) => r.runId);
      expect(await ids([{ key: 'team', value: 'ml' }])).toEqual([labelled]);
      expect(
        await ids([
          { key: 'team', value: 'ml' },
          { key: 'example.com/tier', value: '' },
        ]),
      ).toEqual([labelled]);
      expect(await ids([{ key: 'team', value: 'web' }])).toEqual([other]);
      // A deleted run is no longer found. Runs projected after the migration: apps/api's run-labels.int.spec.ts.
      await reopened.query('DELETE FROM runs WHERE id = $1', [labelled]);
      expect(await ids([{ key: 'team', value: 'ml' }])).toEqual([]);
      expect(Number((await reopened.query('SELECT count(*) AS n FROM run_labels WHERE run_id = $1', [labelled]))[0].n)).toBe(0);
    } finally {
      await reopened.destroy();
    }
  });
});
