import { randomUUID } from 'node:crypto';
import { fold, type RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { migrate, openDatabase } from './data-source';
import { RunProjection } from './run-projection';
import { RunQueries } from './run-queries';

const at = (s: number): string => new Date(Date.UTC(2026, 10, 21, 10, 0, s)).toISOString();
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

function lifecycle(runId: string): { seq: number; event: RunEvent }[] {
  return [
    {
      seq: 10,
      event: {
        type: 'run.created',
        data: { runId, workspaceId: 'ws', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at: at(0) },
      },
    },
    { seq: 12, event: { type: 'run.dispatched', data: { placement, at: at(1) } } },
    { seq: 15, event: { type: 'run.started', data: { at: at(2) } } },
    { seq: 19, event: { type: 'run.succeeded', data: { exitCode: 0, at: at(3) } } },
  ];
}

describe('RunProjection against real Postgres', () => {
  let env: IsolatedEnvironment;
  let db: DataSource;
  let projection: RunProjection;
  let queries: RunQueries;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase({ ...env.database, poolSize: 20 });
    projection = new RunProjection(db);
    queries = new RunQueries(db);
  });

  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  it('ends in the fold of the events when every event arrives twice and out of order', async () => {
    const runId = randomUUID();
    const events = lifecycle(runId);
    const deliveries = [events[2], events[0], events[3], events[2], events[1], events[0], events[3], events[1]];
    for (const d of deliveries) {
      await projection.project(runId, d!.seq, d!.event);
    }
    const run = await queries.find('ws', runId);
    expect(run).toEqual({ ...fold(events.map((e) => e.event)), terminal: true, version: 19 });
  });

  it('reports a redelivery as not applied and does not change the row', async () => {
    const runId = randomUUID();
    const [first] = lifecycle(runId);
    expect((await projection.project(runId, first!.seq, first!.event)).applied).toBe(true);
    expect((await projection.project(runId, first!.seq, first!.event)).applied).toBe(false);
    expect((await queries.find('ws', runId))?.version).toBe(10);
  });

  it('has no lost update and no regression when replicas project concurrently', async () => {
    const runIds = Array.from({ length: 10 }, () => randomUUID());
    // Two "replicas" deliver every event of every run at the same time, in opposite orders.
    await Promise.all(
      runIds.flatMap((runId) => {
        const events = lifecycle(runId);
        return [...events, ...[...events].reverse()].map((e) => projection.project(runId, e.seq, e.event));
      }),
    );
    for (const runId of runIds) {
      expect(await queries.find('ws', runId)).toMatchObject({ state: 'succeeded', version: 19, startedAt: at(2) });
    }
  });

  it('hides a run from another workspace', async () => {
    const runId = randomUUID();
    const [first] = lifecycle(runId);
    await projection.project(runId, first!.seq, first!.event);
    expect(await queries.find('other', runId)).toBeNull();
  });
});
