import { randomUUID } from 'node:crypto';
import type { StreamRunEvent } from '@wrs/messaging';
import { migrate, openDatabase } from '@wrs/persistence';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { IntakeStore } from './intake-store';

const started = (seq: number, workspaceId: string): StreamRunEvent => ({
  runId: randomUUID(),
  workspaceId,
  seq,
  previous: null,
  event: { type: 'run.started', data: { at: new Date().toISOString() } },
});

describe('IntakeStore against real Postgres', () => {
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

  it('writes no cursor for events that owe nothing until a second has passed, and takes what is owed at once', async () => {
    let now = 0;
    const store = new IntakeStore(db, () => now);
    await store.take('intake', [started(1, 'quiet')]);
    expect(await store.cursor('intake')).toBe(1);

    await store.take('intake', [started(2, 'quiet')]);
    expect(await store.cursor('intake')).toBe(1);

    await db.query(
      `INSERT INTO webhooks (id, workspace_id, url, events, sealed, created_at) VALUES ($1, 'loud', 'https://example.test/hook', '{started}', '{}', now() - interval '1 minute')`,
      [randomUUID()],
    );
    expect(await store.take('intake', [started(3, 'quiet'), started(4, 'loud')])).toBe(1);
    expect(await store.cursor('intake')).toBe(4);
    // A kind no endpoint is sent (a dispatch) owes nothing, even in a workspace with an endpoint.
    const dispatched: StreamRunEvent = {
      ...started(5, 'loud'),
      event: {
        type: 'run.dispatched',
        data: { placement: { provider: 'simulator', region: 'local-1', reason: 'test', candidates: [] }, at: new Date().toISOString() },
      },
    };
    expect(await store.take('intake', [dispatched])).toBe(0);
    expect(await store.cursor('intake')).toBe(4);

    await store.take('intake', [started(6, 'quiet')]);
    expect(await store.cursor('intake')).toBe(4);
    now += 1_000;
    await store.take('intake', [started(7, 'quiet')]);
    expect(await store.cursor('intake')).toBe(7);
  });
});
