import { randomUUID } from 'node:crypto';
import { migrate, openDatabase, Webhooks } from '@wrs/persistence';
import { isolatedEnvironment, settlesWithin, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { DeliveryRetention } from './delivery-retention';
import { DeliveryStore } from './delivery-store';

/**
 * Deleting an endpoint while a sender holds one of its deliveries for an attempt: the delete does not
 * wait, the delivery is never claimed again, and the retention job removes it once it is settled.
 */
describe('deleting a webhook endpoint with an attempt in flight, against real Postgres', () => {
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

  it('deletes at once, never sends the delivery again, and prunes it after its attempt', async () => {
    const webhooks = new Webhooks(db);
    const id = randomUUID();
    await webhooks.add({ id, workspaceId: 'ws-delete', url: 'https://example.test/hook', events: ['completed'], sealed: {} });
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, run_id, seq, last_seq, type, payload, next_attempt_at)
       VALUES ('msg_deleted', $1, 'ws-delete', 'run-1', 1, 1, 'run.completed', '{}', now())`,
      [id],
    );
    const store = new DeliveryStore(db);
    const retention = new DeliveryRetention(db, 60_000, () => undefined);
    const claim = await store.claim();
    expect(claim?.delivery.id).toBe('msg_deleted');

    expect(await settlesWithin(3_000, webhooks.remove('ws-delete', id))).toBe(true);
    // Nor does the retention job wait for the attempt, or take the delivery from under it.
    expect(await settlesWithin(3_000, retention.prune())).toBe(0);

    await claim!.settle({ status: 'pending', responseStatus: 500, error: 'status', retryInMs: 0 });
    expect(await store.claim()).toBeNull();
    expect(await retention.prune()).toBe(1);
    expect(await db.query('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [id])).toEqual([]);
  });

  it('prunes the pending deliveries an api of the previous version leaves: its delete counted on the dropped cascade', async () => {
    const id = randomUUID();
    await new Webhooks(db).add({ id, workspaceId: 'ws-old-api', url: 'https://example.test/hook', events: ['completed'], sealed: {} });
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, run_id, seq, last_seq, type, payload, next_attempt_at)
       VALUES ('msg_left_by_old_api', $1, 'ws-old-api', 'run-2', 1, 1, 'run.completed', '{}', now() + interval '1 hour')`,
      [id],
    );
    await db.query('DELETE FROM webhooks WHERE id = $1', [id]);
    expect(await new DeliveryRetention(db, 60_000, () => undefined).prune()).toBe(1);
    expect(await db.query('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [id])).toEqual([]);
  });
});
