import { connect } from 'node:net';
import { Client } from 'pg';
import { addressOf } from './dev-dependency-container';
import type { DevDependencyKind } from './dev-dependency-images';

/** How long each started server may take to answer: a first Postgres start runs initdb, slow on a loaded machine. */
export const DEV_DEPENDENCY_READY_MS = 120_000;

/** One attempt: each server's own request, answered (NATS `PING`, Redis `PING`, Postgres `SELECT 1`). */
const ATTEMPT_MS = 3000;

/** Until the server at `url` answers a real request; rejects with the last problem after `timeoutMs`. */
export async function waitUntilServing(kind: DevDependencyKind, url: string, timeoutMs = DEV_DEPENDENCY_READY_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const problem = await probe(kind, url).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    if (problem === undefined) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`${kind} at ${url} did not answer within ${timeoutMs} ms (last: ${problem})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function probe(kind: DevDependencyKind, url: string): Promise<void> {
  switch (kind) {
    case 'nats':
      // The server greets with INFO; a PING after CONNECT is answered once it serves clients.
      return exchange(addressOf(url, 4222), 'CONNECT {"verbose":false}\r\nPING\r\n', 'PONG\r\n');
    case 'redis':
      return exchange(addressOf(url, 6379), 'PING\r\n', '+PONG\r\n');
    case 'postgres':
      return selectOne(url);
  }
}

/** Connects, writes `request`, and resolves once `answer` arrives. */
function exchange(address: { host: string; port: number }, request: string, answer: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ ...address, timeout: ATTEMPT_MS });
    let received = '';
    const fail = (why: string): void => {
      socket.destroy();
      reject(new Error(why));
    };
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(request));
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.includes(answer)) {
        socket.destroy();
        resolve();
      }
    });
    socket.once('timeout', () => fail(`no ${answer.trim()} within ${ATTEMPT_MS} ms`));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.once('close', () => fail(`closed before ${answer.trim()}`));
  });
}

async function selectOne(url: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: ATTEMPT_MS });
  client.on('error', () => undefined); // a server that goes away mid-attempt fails the query instead
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}
