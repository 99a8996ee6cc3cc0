import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { StreamNames } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';
import { Client } from 'pg';
import { testInfrastructure, type TestInfrastructure } from './infrastructure';

/**
 * One test file's private corner of the shared servers: its own stream names and subjects (namespace),
 * its own Postgres schema, its own Redis key prefix; `cleanup()` removes all of them.
 */
export interface IsolatedEnvironment extends TestInfrastructure {
  readonly namespace: string;
  readonly schema: string;
  readonly database: { url: string; schema: string };
  cleanup(): Promise<void>;
}

export async function isolatedEnvironment(): Promise<IsolatedEnvironment> {
  const infra = testInfrastructure();
  const namespace = `t${randomBytes(6).toString('hex')}`;
  const schema = namespace;
  const database = { url: infra.databaseUrl, schema };
  await migrate(database);
  return {
    ...infra,
    namespace,
    schema,
    database,
    cleanup: async () => {
      await deleteStreams(infra.natsUrl, namespace);
      await dropSchema(infra.databaseUrl, schema);
    },
  };
}

async function deleteStreams(natsUrl: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const names = new StreamNames(namespace);
    for (const stream of [names.eventsStream, names.commandsStream]) {
      await jsm.streams.delete(stream).catch(() => false);
    }
  } finally {
    await nc.close();
  }
}

async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
