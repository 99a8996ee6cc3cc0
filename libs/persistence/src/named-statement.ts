import { CannotExecuteNotConnectedError, type DataSource } from 'typeorm';

/** A statement Postgres parses and plans once per connection (by its name), then only executes. */
export interface NamedStatement {
  /** Unique in the process: one name is one text on every connection. */
  readonly name: string;
  readonly text: string;
}

/** The node-postgres pool a TypeORM Postgres data source holds (the part of it used here). */
interface PgPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs a named statement on a connection of the data source's pool, outside any transaction. For the
 * statements a service runs for every run or on a timer: TypeORM's `query` sends each unnamed, so
 * Postgres parses and plans it again every time (for a lookup by key, planning was most of its cost).
 * After five executions Postgres may keep one generic plan for the statement on that connection.
 */
export async function runNamed<R>(db: DataSource, statement: NamedStatement, values: readonly unknown[] = []): Promise<R[]> {
  const pool = (db.driver as unknown as { master?: PgPool }).master;
  if (!db.isInitialized || !pool) {
    // What TypeORM's own query throws on a closed data source: a 503, not a TypeError's 500.
    throw new CannotExecuteNotConnectedError();
  }
  const run = async (): Promise<R[]> =>
    (await pool.query({ name: currentName(statement), text: statement.text, values: [...values] })).rows as R[];
  try {
    return await run();
  } catch (error) {
    // 0A000 "cached plan must not change result type": a migration changed a column the statement
    // reads. A statement prepared before it fails so on every execution on its connection, so from
    // now on this process prepares it under a new name, on every connection, and this call retries.
    if ((error as { code?: unknown }).code !== '0A000') {
      throw error;
    }
    renamed.set(statement.name, (renamed.get(statement.name) ?? 0) + 1);
    return run();
  }
}

/** How many times each statement has been prepared anew after a migration, by its own name. */
const renamed = new Map<string, number>();

function currentName(statement: NamedStatement): string {
  const generation = renamed.get(statement.name);
  return generation === undefined ? statement.name : `${statement.name}_${generation}`;
}
