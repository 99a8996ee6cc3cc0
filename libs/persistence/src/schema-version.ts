import { waitAtStart } from '@wrs/config';
import type { DataSource } from 'typeorm';
import { openDatabase, type DatabaseOptions } from './data-source';

/** The database lacks migrations this build needs: the migrate step has not run (yet). */
export class SchemaBehindError extends Error {
  constructor(readonly pending: readonly string[]) {
    super(`the database schema is behind this build: migrations not applied: ${pending.join(', ')} (run migrate first)`);
    this.name = 'SchemaBehindError';
  }
}

/**
 * This build's migrations that the database has not applied, in order. A database ahead of the build
 * (migrated for a newer version during a rolling upgrade) is not behind: newer migrations are additive.
 */
export async function pendingMigrations(db: DataSource): Promise<string[]> {
  const schema = (db.options as { schema?: string }).schema ?? 'public';
  const table = db.options.migrationsTableName ?? 'migrations';
  const exists = (await db.query('SELECT to_regclass($1) AS t', [`"${schema}"."${table}"`])) as { t: string | null }[];
  const applied = new Set(
    exists[0]?.t ? ((await db.query(`SELECT name FROM "${schema}"."${table}"`)) as { name: string }[]).map((r) => r.name) : [],
  );
  return db.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !applied.has(name));
}

/**
 * Opens the database once its schema has every migration of this build, waiting up to `waitSeconds`
 * for Postgres to answer and for the migrate step to finish (Compose starts both at the same time).
 */
export function openCurrentDatabase(options: DatabaseOptions, waitSeconds: number): Promise<DataSource> {
  return waitAtStart('Postgres with the current schema', waitSeconds, async () => {
    const db = await openDatabase(options);
    const pending = await pendingMigrations(db).catch(async (error: unknown) => {
      await db.destroy();
      throw error;
    });
    if (pending.length > 0) {
      await db.destroy();
      throw new SchemaBehindError(pending);
    }
    return db;
  });
}
