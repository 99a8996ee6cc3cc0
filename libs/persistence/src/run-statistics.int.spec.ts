import { randomUUID } from 'node:crypto';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { migrate, openDatabase } from './data-source';
import { RunStatisticsQuery } from './run-statistics';

describe("run statistics (the worker's wrs_runs_active and wrs_runs_oldest_unchanged_age_seconds) against real Postgres", () => {
  let env: IsolatedEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
  });

  afterAll(async () => {
    await db?.destroy();
    await env.cleanup();
  });

  async function row(state: string, body: Record<string, unknown>, unchangedSeconds: number, terminal = false): Promise<void> {
    await db.query(
      `INSERT INTO runs (id, workspace_id, state, terminal, version, body, created_at, state_version, updated_at)
       VALUES ($1, 'ws', $2, $3, 1, $4, now(), 1, now() - make_interval(secs => $5))`,
      [randomUUID(), state, terminal, JSON.stringify({ state, ...body }), unchangedSeconds],
    );
  }

  it('counts a queued run that waits for capacity as `waiting`, so the stuck-runs alert on `queued` does not fire for it, but not one that waits for an unhealthy provider', async () => {
    await row('queued', { waiting: null }, 30);
    await row('queued', {}, 20);
    await row('queued', { waiting: { reason: 'no_capacity', message: 'full', since: new Date().toISOString() } }, 3600);
    // Waiting for an unhealthy provider is a fault: it stays `queued`, and the alert sees it.
    await row('queued', { waiting: { reason: 'provider_unhealthy', message: 'down', since: new Date().toISOString() } }, 900);
    await row('running', {}, 7200);
    await row('succeeded', {}, 9000, true);
    const byState = new Map((await new RunStatisticsQuery(db).nonTerminalByState()).map((s) => [s.state, s]));
    expect([...byState.keys()].sort()).toEqual(['queued', 'running', 'waiting']);
    expect(byState.get('queued')?.count).toBe(3);
    expect(byState.get('queued')?.oldestUnchangedSeconds).toBeGreaterThanOrEqual(900);
    expect(byState.get('queued')?.oldestUnchangedSeconds).toBeLessThan(3600);
    expect(byState.get('waiting')?.count).toBe(1);
    expect(byState.get('waiting')?.oldestUnchangedSeconds).toBeGreaterThanOrEqual(3600);
    expect(byState.get('running')?.count).toBe(1);
  });
});
