import type { Server } from 'node:http';
import { Client, Pool } from 'pg';
import { connectAsServicesDo } from '../raw-nats';
import { essentialApi } from './essential-api';
import { EssentialNames } from './essential-names';
import { ESSENTIAL_SSE_READS, essentialRelay, type EssentialSseRead } from './essential-relay';
import { essentialWorker } from './essential-worker';

/**
 * One part of the essential program (essential-process.ts starts all three), by its first argument:
 * `api`, `worker` or `relay`. No framework, no config, no logger: raw node:http, jose, the @nats-io
 * clients and pg. Says `ready <url>` on stdout once it serves; stops on SIGTERM or SIGINT, and when its
 * stdin closes (the bench that started it is gone, however it ended).
 */
async function main(): Promise<void> {
  const role = process.argv[2];
  const env = (name: string): string => {
    const value = process.env[name];
    if (!value) {
      throw new Error(`${name} is not set`);
    }
    return value;
  };
  const names = new EssentialNames(env('BENCH_NAMESPACE'), env('DATABASE_SCHEMA'));
  const nc = await connectAsServicesDo(env('NATS_URL'));
  let server: Server | undefined;
  let stopWorker: (() => Promise<void>) | undefined;
  let pg: Client | Pool | undefined;
  if (role === 'api') {
    // As many connections as the api's pool (api-dependencies.ts: 10), for the read.
    pg = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });
    // An idle connection Postgres ended must not end the essential api mid-bench: the pool replaces it.
    pg.on('error', () => undefined);
    server = essentialApi(nc, pg, names, env('PUBLIC_KEY_FILE'));
  } else if (role === 'relay') {
    const read = env('ESSENTIAL_SSE') as EssentialSseRead;
    if (!ESSENTIAL_SSE_READS.includes(read)) {
      throw new Error(`ESSENTIAL_SSE is ${read}: one of ${ESSENTIAL_SSE_READS.join(', ')}`);
    }
    server = await essentialRelay(nc, names, env('PUBLIC_KEY_FILE'), read);
  } else if (role === 'worker') {
    const client = new Client({ connectionString: env('DATABASE_URL') });
    pg = client;
    await client.connect();
    stopWorker = await essentialWorker(nc, client, names);
  } else {
    throw new Error(`unknown role ${role ?? '(none)'}: api, worker or relay`);
  }
  if (server) {
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const address = listening.address();
    console.log(`ready http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1`);
  } else {
    console.log('ready');
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    server?.closeAllConnections();
    server?.close();
    void (async () => {
      await stopWorker?.();
      await nc.drain();
      await pg?.end();
    })()
      .catch((error: unknown) => console.error(`essential ${role}: ${String(error)}`))
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.once('close', stop);
  process.stdin.resume();
}

main().catch((error: unknown) => {
  console.error(`essential ${process.argv[2] ?? ''}: ${String(error)}`);
  process.exit(1);
});
