import { randomBytes } from 'node:crypto';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { Client } from 'pg';
import { openDatabase } from './data-source';

/** Runs one statement as the test's own superuser connection. */
async function admin(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('the services commit synchronously whatever the server says', () => {
  let env: IsolatedEnvironment;
  const role = `wrs_async_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    // A role whose default is asynchronous commit: what a server or role configured for speed gives.
    await admin(env.databaseUrl, `CREATE ROLE ${role} LOGIN PASSWORD '${role}' SUPERUSER`);
    await admin(env.databaseUrl, `ALTER ROLE ${role} SET synchronous_commit = off`);
  });

  afterAll(async () => {
    await admin(env.databaseUrl, `DROP ROLE IF EXISTS ${role}`);
    await env.cleanup();
  });

  it('a plain connection of that role commits asynchronously; the services’ connection does not', async () => {
    const url = new URL(env.databaseUrl);
    url.username = role;
    url.password = role;
    const plain = new Client({ connectionString: url.toString() });
    await plain.connect();
    const { rows } = await plain.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    await plain.end();
    expect(rows[0]!.synchronous_commit).toBe('off');
    const db = await openDatabase({ url: url.toString(), schema: env.schema });
    try {
      expect(await db.query('SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      await db.destroy();
    }
  });
});
