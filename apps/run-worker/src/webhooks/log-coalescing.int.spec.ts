import { randomUUID } from 'node:crypto';
import type { StreamRunEvent } from '@wrs/messaging';
import { migrate, openDatabase } from '@wrs/persistence';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { DeliveryStore } from './delivery-store';
import { IntakeStore } from './intake-store';

const logLine = (runId: string, seq: number, index: number): StreamRunEvent => ({
  runId,
  workspaceId: 'ws-logs',
  seq,
  previous: null,
  event: { type: 'run.log', data: { index, stream: 'stdout', line: `line ${index}`, at: new Date().toISOString() } },
});

/**
 * Log lines join a pending `run.logs` delivery only while no sender has ever claimed it: an attempt
 * whose outcome is lost (here the outcome's write fails and rolls back) may have reached the receiver,
 * so the retry must carry the same `webhook-id` with the same body, and later lines go in a new one.
 */
describe('run.logs coalescing against real Postgres', () => {
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

  it('sends a claimed delivery again with the same body after its outcome was lost; later lines start a new delivery', async () => {
    await db.query(
      `INSERT INTO webhooks (id, workspace_id, url, events, sealed, created_at) VALUES ($1, 'ws-logs', 'https://example.test/hook', '{logs}', '{}', now() - interval '1 minute')`,
      [randomUUID()],
    );
    const runId = randomUUID();
    const intake = new IntakeStore(db);
    const senders = new DeliveryStore(db);
    await intake.take('intake', [logLine(runId, 1, 0)]);
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE run_id = $1`, [runId]);

    const first = await senders.claim();
    expect(first).not.toBeNull();
    // The POST was made; recording its outcome fails (an integer out of range), so attempts stays 0.
    await expect(first!.settle({ status: 'delivered', responseStatus: 1e12 })).rejects.toThrow();
    expect(await db.query('SELECT attempts FROM webhook_deliveries WHERE id = $1', [first!.delivery.id])).toEqual([{ attempts: 0 }]);

    await intake.take('intake', [logLine(runId, 2, 1)]);
    const again = await senders.claim();
    expect([again?.delivery.id, again?.delivery.body]).toEqual([first!.delivery.id, first!.delivery.body]);
    await again!.settle({ status: 'delivered', responseStatus: 204 });

    const rows = (await db.query(
      `SELECT id, jsonb_path_query_array(payload, '$.data.lines[*].index') AS lines FROM webhook_deliveries WHERE run_id = $1 ORDER BY seq`,
      [runId],
    )) as { id: string; lines: number[] }[];
    expect(rows).toEqual([
      { id: first!.delivery.id, lines: [0] },
      { id: expect.not.stringMatching(first!.delivery.id), lines: [1] },
    ]);
  });
});
