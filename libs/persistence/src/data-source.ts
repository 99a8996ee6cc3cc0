import { redactUrl } from '@wrs/config';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { RunEventEntity } from './entities/run-event.entity';
import { RunEntity } from './entities/run.entity';
import { WorkspaceEntity } from './entities/workspace.entity';
import { InitialSchema1763700000000 } from './migrations/1763700000000-initial-schema';
import { ProviderCredentials1763700000001 } from './migrations/1763700000001-provider-credentials';
import { ActiveRunsIndex1763700000002 } from './migrations/1763700000002-active-runs-index';
import { RunsListIndexes1763700000003 } from './migrations/1763700000003-runs-list-indexes';
import { RunEventsPrevious1763700000004 } from './migrations/1763700000004-run-events-previous';
import { ActiveRunsByUpdate1763700000005 } from './migrations/1763700000005-active-runs-by-update';
import { RunStateVersion1763700000006 } from './migrations/1763700000006-run-state-version';
import { RunLabels1763700000007 } from './migrations/1763700000007-run-labels';
import { Webhooks1763700000008 } from './migrations/1763700000008-webhooks';
import { OneActiveRunsIndex1763700000009 } from './migrations/1763700000009-one-active-runs-index';
import { WebhookDeleteWithoutLocks1763700000010 } from './migrations/1763700000010-webhook-delete-without-locks';
import { WebhookDeliveryClaimed1763700000011 } from './migrations/1763700000011-webhook-delivery-claimed';

export interface DatabaseOptions {
  readonly url: string;
  readonly schema: string;
  readonly poolSize?: number;
}

export class DatabaseUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot connect to Postgres at ${redactUrl(url)}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'DatabaseUnavailableError';
  }
}

export function createDataSource(options: DatabaseOptions, settings: readonly string[] = []): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: [WorkspaceEntity, RunEntity, RunEventEntity],
    migrations: [
      InitialSchema1763700000000,
      ProviderCredentials1763700000001,
      ActiveRunsIndex1763700000002,
      RunsListIndexes1763700000003,
      RunEventsPrevious1763700000004,
      ActiveRunsByUpdate1763700000005,
      RunStateVersion1763700000006,
      RunLabels1763700000007,
      Webhooks1763700000008,
      OneActiveRunsIndex1763700000009,
      WebhookDeleteWithoutLocks1763700000010,
      WebhookDeliveryClaimed1763700000011,
    ],
    migrationsTableName: 'typeorm_migrations',
    // Migrations own the schema; synchronize would let an entity edit alter production tables.
    synchronize: false,
    // synchronous_commit=on whatever the server's default: the projection acknowledges an event to
    // JetStream after its commit, so a commit lost to a power failure would never be delivered again.
    extra: {
      max: options.poolSize ?? 10,
      options: [`-c search_path=${options.schema}`, '-c synchronous_commit=on', ...settings.map((s) => `-c ${s}`)].join(' '),
    },
  });
}

export async function openDatabase(options: DatabaseOptions, settings: readonly string[] = []): Promise<DataSource> {
  const dataSource = createDataSource(options, settings);
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new DatabaseUnavailableError(options.url, error);
  }
  return dataSource;
}

/** How a migration waits for its table's lock: bounded, and tried again, so no writer queues behind it for long. */
export interface MigrationLockPolicy {
  /** Postgres's `lock_timeout` for the migration's statements. */
  readonly lockTimeoutMs: number;
  /** How many times a migration whose lock timed out is tried, a pause between tries. */
  readonly attempts: number;
  readonly pauseMs: number;
}

export const DEFAULT_MIGRATION_LOCKS: MigrationLockPolicy = { lockTimeoutMs: 5_000, attempts: 12, pauseMs: 5_000 };

/** How a migration's connection shows in pg_stat_activity (Postgres keeps 63 bytes of it). */
export function migrateApplicationName(schema: string): string {
  return `wrs-migrate:${schema}`.slice(0, 63);
}

/** Postgres's lock_not_available: a statement's lock_timeout passed. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Creates the schema (if missing) and applies pending migrations: the migration step of the stack.
 * An `ALTER TABLE` waiting for a lock that a long transaction holds would queue every later reader
 * and writer of the table behind it; with a lock timeout it gives up after a moment (its migration
 * rolls back, each runs in its own transaction), the queue drains, and it is tried again.
 */
export async function migrate(options: DatabaseOptions, locks: MigrationLockPolicy = DEFAULT_MIGRATION_LOCKS): Promise<string[]> {
  const client = new Client({ connectionString: options.url });
  try {
    await client.connect();
  } catch (error) {
    throw new DatabaseUnavailableError(options.url, error);
  }
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
  } finally {
    await client.end();
  }
  const dataSource = await openDatabase(options, [
    `lock_timeout=${locks.lockTimeoutMs}`,
    `application_name=${migrateApplicationName(options.schema)}`,
  ]);
  try {
    // Read from the table, not runMigrations' answer: a try cut short by a lock has committed the migrations before it.
    const before = new Set(await appliedNames(dataSource));
    for (let attempt = 1; ; attempt++) {
      try {
        await dataSource.runMigrations({ transaction: 'each' });
        return (await appliedNames(dataSource)).filter((name) => !before.has(name));
      } catch (error) {
        if (!isLockTimeout(error)) {
          throw error;
        }
        if (attempt >= locks.attempts) {
          const query = (error as { query?: unknown }).query;
          throw new Error(
            `a migration did not get its table's lock within ${locks.lockTimeoutMs} ms in ${attempts(locks)}: a long transaction holds it ` +
              `(see pg_stat_activity); the statement was: ${String(query).slice(0, 200)}`,
            { cause: error },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, locks.pauseMs));
      }
    }
  } finally {
    await dataSource.destroy();
  }
}

function isLockTimeout(error: unknown): boolean {
  const failed = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  return (failed?.driverError?.code ?? failed?.code) === LOCK_NOT_AVAILABLE;
}

function attempts(locks: MigrationLockPolicy): string {
  return locks.attempts === 1 ? 'one try' : `${locks.attempts} tries`;
}

async function appliedNames(dataSource: DataSource): Promise<string[]> {
  const exists = (await dataSource.query(`SELECT to_regclass('typeorm_migrations') IS NOT NULL AS e`)) as { e: boolean }[];
  if (!exists[0]?.e) {
    return [];
  }
  return ((await dataSource.query(`SELECT name FROM typeorm_migrations ORDER BY id`)) as { name: string }[]).map((r) => r.name);
}
