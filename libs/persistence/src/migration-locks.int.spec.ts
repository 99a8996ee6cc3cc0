import { Client } from 'pg';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { migrate, migrateApplicationName } from './data-source';
import { OneActiveRunsIndex1763700000009 } from './migrations/1763700000009-one-active-runs-index';
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

  /** Whether this test's migrate connection waits for a lock in a statement like `pattern`. */
  async function waitingOnLock(pattern: string): Promise<boolean> {
    const probe = await connected();
    const { rows } = await probe.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND query LIKE $2`,
      [migrateApplicationName(env.database.schema), pattern],
    );
    await probe.end();
    clients.splice(clients.indexOf(probe), 1);
    return rows[0]!.n > 0;
  }

  /** Takes a migration back: it is pending again (its statements are idempotent or undone by the caller). */
  async function pendingAgain(name: string): Promise<void> {
    const setup = await connected();
    await setup.query('DELETE FROM typeorm_migrations WHERE name = $1', [name]);
  }

  /**
   * The claimed-column migration pending again (its row gone, its column dropped), and a long
   * transaction that has read webhook_deliveries: its lock is one the migration's ALTER must wait for.
   */
  async function claimedBehindLongRead(): Promise<Client> {
    await pendingAgain(claimed);
    const setup = await connected();
    await setup.query('ALTER TABLE webhook_deliveries DROP COLUMN claimed_at');
    const long = await connected();
    await long.query('BEGIN');
    await long.query('SELECT count(*) FROM webhook_deliveries');
    return long;
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
    const long = await claimedBehindLongRead();
    const error = await migrate(env.database, { lockTimeoutMs: 100, attempts: 2, pauseMs: 10 }).catch((e: unknown) => e);
    await long.query('COMMIT');
    expect(String(error)).toContain("a migration did not get its table's lock within 100 ms in 2 tries");
    expect(String(error)).toContain('ALTER TABLE webhook_deliveries ADD COLUMN claimed_at');
  });

  it('a reader behind the waiting migration gets through while the long transaction holds on; the migration applies after it', async () => {
    await migrate(env.database);
    const long = await claimedBehindLongRead();

    const migrating = migrate(env.database, { lockTimeoutMs: 300, attempts: 1_000, pauseMs: 100 });
    const applied = migrating.catch((error: unknown) => error);
    await eventually(
      async () => {
        return (await waitingOnLock('ALTER TABLE webhook_deliveries%')) ? true : undefined;
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
    const { rows } = await (
      await connected()
    ).query<{ n: number }>(
      `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'webhook_deliveries' AND column_name = 'claimed_at'`,
      [env.database.schema],
    );
    expect(rows[0]!.n).toBe(1);
  }, 60_000);

  it('reports every migration it applied, also those committed before a try its lock cut short', async () => {
    await migrate(env.database);
    // The index migration (idempotent, on runs) and the claimed column (on webhook_deliveries) pending again.
    await pendingAgain(new OneActiveRunsIndex1763700000009().name);
    const long = await claimedBehindLongRead();
    const applied = migrate(env.database, { lockTimeoutMs: 200, attempts: 1_000, pauseMs: 50 }).catch((error: unknown) => error);
    await eventually(
      async () => ((await waitingOnLock('ALTER TABLE webhook_deliveries%')) ? true : undefined),
      20_000,
      'the ALTER to wait',
    );
    await long.query('COMMIT');
    expect(await applied).toEqual([new OneActiveRunsIndex1763700000009().name, claimed]);
  });

  it('an index built concurrently waits out an old transaction instead of timing out, and is valid', async () => {
    await migrate(env.database);
    await pendingAgain(new OneActiveRunsIndex1763700000009().name);
    const setup = await connected();
    await setup.query('DROP INDEX runs_active');
    const old = await connected();
    await old.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await old.query('SELECT count(*) FROM runs');
    const applied = migrate(env.database, { lockTimeoutMs: 100, attempts: 2, pauseMs: 10 }).catch((error: unknown) => error);
    await eventually(async () => ((await waitingOnLock('CREATE INDEX CONCURRENTLY%')) ? true : undefined), 20_000, 'the build to wait');
    // Well past the lock timeout and both tries.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await old.query('COMMIT');
    expect(await applied).toEqual([new OneActiveRunsIndex1763700000009().name]);
    const { rows } = await setup.query<{ valid: boolean }>(
      `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relname = 'runs_active' AND c.relnamespace = $1::regnamespace`,
      [env.database.schema],
    );
    expect(rows).toEqual([{ valid: true }]);
  });
});
