import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { createDataSource, migrate } from './data-source';
import { openCurrentDatabase, SchemaBehindError } from './schema-version';

/** A service opens the database only at its build's schema, and waits (bounded) for migrate to get there. */
describe('openCurrentDatabase against real Postgres', () => {
  let env: IsolatedEnvironment;
  // This build's migrations, in order (a DataSource lists its instances only once initialized).
  const classes = createDataSource({ url: 'postgres://unused', schema: 'unused' }).options.migrations as (new () => { name: string })[];
  const everyMigration = classes.map((Migration) => new Migration().name);

  beforeAll(async () => {
    env = await isolatedEnvironment();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  it('with no wait, an unmigrated schema fails at once, naming every migration not applied', async () => {
    const error = await openCurrentDatabase(env.database, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaBehindError);
    expect((error as SchemaBehindError).pending).toEqual(everyMigration);
  });

  it('waits for a migration that finishes during its wait, then opens', async () => {
    const opening = openCurrentDatabase(env.database, 60);
    // Migrate once the service has found the schema behind at least once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await migrate(env.database);
    const db = await opening;
    expect(await db.query('SELECT count(*)::int AS n FROM typeorm_migrations')).toEqual([{ n: everyMigration.length }]);
    await db.destroy();
  });

  it('a schema missing its last migration is behind by that one', async () => {
    const db = await openCurrentDatabase(env.database, 0);
    await db.query('DELETE FROM typeorm_migrations WHERE name = $1', [everyMigration.at(-1)]);
    await db.destroy();
    const error = await openCurrentDatabase(env.database, 0).catch((e: unknown) => e);
    expect((error as SchemaBehindError).pending).toEqual([everyMigration.at(-1)]);
  });
});
