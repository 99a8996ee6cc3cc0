import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { dropSchema } from '@wrs/testing';

/** A bench namespace's streams and schema go away with it. */
export async function cleanUp(natsUrl: string, databaseUrl: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  // Deleting a stream of many messages takes a while.
  const jsm = await jetstreamManager(nc, { timeout: 60_000 });
  for await (const name of jsm.streams.names()) {
    if (name.startsWith(`${namespace.toUpperCase()}_`)) {
      await jsm.streams.delete(name).catch((error: unknown) => console.error(`could not delete stream ${name}: ${String(error)}`));
    }
  }
  await nc.close();
  await dropSchema(databaseUrl, namespace);
}
