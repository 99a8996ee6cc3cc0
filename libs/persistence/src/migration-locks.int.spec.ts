import { Client } from 'pg';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { migrate } from './data-source';
import { WebhookDeliveryClaimed1763700000011 } from './migrations/1763700000011-webhook-delivery-claimed';

/**
 * A migration's `ALTER TABLE` that waits behind a long transaction's lock must not queue every other
 * reader and writer of the table behind it for as long: it gives up after its lock timeout, lets them
 * through, and is tried again until it gets the lock. Real Postgres, three connections.
 */
describe('a migration waiting for a lock does not hold up the table (real Postgres)', () => {
  let env: IsolatedEnvironment;
  /** The migration taken back and applied again: an ALTER TABLE of webhook_deliveries. */
  const claimed = new WebhookDeliveryClaimed1763700000011().name;
  const clients: Client[] = [];

  async function connected(): Promise<Client> {
    const client = new Client({ connectionString: env.database.url, options: `-c search_path=${env.database.schema}` });
    await client.connect();
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    env = await isolatedEnvironment();
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await env.cleanup();
  });

  it('a migration whose lock never comes fails naming its statement, after its tries', async () => {
    await migrate(env.database);
    const setup = await connected();
    await setup.query('DELETE FROM typeorm_migrations WHERE name = $1', [claimed]);
    await setup.query('ALTER TABLE webhook_deliveries DROP COLUMN claimed_at');
    const long = await connected();
    await long.query('BEGIN');
    await long.query('SELECT count(*) FROM webhook_deliveries');
    const error = await migrate(env.database, { lockTimeoutMs: 100, attempts: 2, pauseMs: 10 }).catch((e: unknown) => e);
    await long.query('COMMIT');
    expect(String(error)).toContain("a migration did not get its table's lock within 100 ms in 2 tries");
    expect(String(error)).toContain('ALTER TABLE webhook_deliveries ADD COLUMN claimed_at');
  });

  it('a reader behind the waiting migration gets through while the long transaction holds on; the migration applies after it', async () => {
    await migrate(env.database);
    // The schema without that migration: it is pending again.
    const setup = await connected();
    await setup.query('DELETE FROM typeorm_migrations WHERE name = $1', [claimed]);
    await setup.query('ALTER TABLE webhook_deliveries DROP COLUMN claimed_at');

    // A long transaction that has read the table holds a lock the ALTER must wait for.
    const long = await connected();
    await long.query('BEGIN');
    await long.query('SELECT count(*) FROM webhook_deliveries');

    const migrating = migrate(env.database, { lockTimeoutMs: 300, attempts: 1_000, pauseMs: 100 });
    const applied = migrating.catch((error: unknown) => error);
    await eventually(
      async () => {
        const { rows } = await setup.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'ALTER TABLE webhook_deliveries%'`,
        );
        return rows[0]!.n > 0 ? true : undefined;
      },
      20_000,
      'the migration to wait for its lock',
    );

    // Without a lock timeout this read would wait behind the ALTER until the long transaction ends.
    const reader = await connected();
    let read: number | undefined;
    void reader.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries').then((r) => (read = r.rows[0]!.n));
    expect(await eventually(() => Promise.resolve(read), 20_000, 'the read to get through')).toBe(0);

    await long.query('COMMIT');
    expect(await applied).toEqual([claimed]);
    const { rows } = await setup.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'webhook_deliveries' AND column_name = 'claimed_at'`,
      [env.database.schema],
    );
    expect(rows[0]!.n).toBe(1);
  }, 60_000);
});
