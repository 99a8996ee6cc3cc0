import type { DataSource } from 'typeorm';

/** A statement Postgres parses and plans once per connection (by its name), then only executes. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** A connection inside a transaction: each call is one statement and one round trip. */
export interface Sql {
  run<R>(statement: Statement, values: readonly unknown[]): Promise<R[]>;
}

/** The node-postgres client a TypeORM query runner holds (the part of it used here). */
interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  query(text: string): Promise<unknown>;
}

/** BEGIN and the transaction's settings in one simple query, one round trip; `SET LOCAL` ends with the transaction. */
export function beginWith(settings: readonly string[]): string {
  return ['BEGIN', ...settings.map((setting) => `SET LOCAL ${setting}`)].join('; ');
}

/**
 * Runs `work` in one transaction on a connection of the data source's pool, with named statements on
 * the driver's own client: the projection runs the same few statements for every batch, and parsing
 * and planning each again (TypeORM's unnamed queries) cost Postgres about as much as executing them.
 */
export async function inTransaction<T>(db: DataSource, settings: readonly string[], work: (sql: Sql) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner();
  const client = (await runner.connect()) as PgClient;
  const sql: Sql = {
    run: async <R>(statement: Statement, values: readonly unknown[]): Promise<R[]> =>
      (await client.query({ name: statement.name, text: statement.text, values: [...values] })).rows as R[],
  };
  try {
    await client.query(beginWith(settings));
    const result = await work(sql);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
