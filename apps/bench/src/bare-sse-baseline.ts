import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './heap-after-collection';

export interface BareSseServer {
  readonly url: string;
  readonly pid: number;
  /** Its inspector's port, opened on SIGUSR1 (heap-after-collection.ts). */
  readonly inspectPort: number;
  /** Writes one event, with `data` as its data line, to every open stream. */
  send(data: string): void;
}

let started: Promise<BareSseServer> | undefined;

/**
 * The fan-out's baseline: a bare node:http SSE server (bare-sse-server.ts) in a process of its own,
 * started on first use and kept for the bench's other fan-out sizes, as the relay is. The scenario
 * measures it exactly as it measures the relay: same client, same memory reading (heap-after-collection.ts)
 * at the same moment. (It used to run inside the bench process beside its own clients, with half the process's
 * growth taken as the server's, read right after the last stream opened where the relay's is read a
 * second later.)
 */
export function bareSseServer(): Promise<BareSseServer> {
  started ??= freePort().then(
    (inspectPort) =>
      new Promise((resolve, reject) => {
        const child: ChildProcess = fork(join(__dirname, 'bare-sse-server.js'), [], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          execArgv: [`--inspect-port=127.0.0.1:${inspectPort}`],
        });
        child.once('message', (message: { port: number }) => {
          // Neither keeps the bench alive; the server exits when the bench does (its IPC channel closes).
          child.unref();
          child.channel?.unref();
          resolve({ url: `http://127.0.0.1:${message.port}/`, pid: child.pid!, inspectPort, send: (data) => child.send({ send: data }) });
        });
        child.once('exit', (code, signal) =>
          reject(new Error(`the bare SSE server exited (${signal ?? `code ${code}`}) before it listened`)),
        );
      }),
  );
  return started;
}
