import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { testInfrastructure, type TestInfrastructure } from './infrastructure';

/**
 * One test file's private corner of the shared servers: its own stream names and subjects (namespace),
 * its own Postgres schema (created by the migrations the test runs), its own Redis key prefix;
 * `cleanup()` removes all of them.
 */
export interface IsolatedEnvironment extends TestInfrastructure {
  readonly namespace: string;
  readonly schema: string;
  readonly database: { url: string; schema: string };
  cleanup(): Promise<void>;
}

export function isolatedEnvironment(): Promise<IsolatedEnvironment> {
  const infra = testInfrastructure();
  const namespace = `t${randomBytes(6).toString('hex')}`;
  const schema = namespace;
  const database = { url: infra.databaseUrl, schema };
  return Promise.resolve({
    ...infra,
    namespace,
    schema,
    database,
    cleanup: async () => {
      await deleteStreams(infra.natsUrl, namespace);
      await dropSchema(infra.databaseUrl, schema);
    },
  });
}

async function deleteStreams(natsUrl: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    // Every stream of a namespace is named `<NAMESPACE>_...`.
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${namespace.toUpperCase()}_`)) {
        await jsm.streams.delete(name).catch(() => false);
      }
    }
  } finally {
    await nc.close();
  }
}

/** Drops a Postgres schema and everything in it, if it exists. */
export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
