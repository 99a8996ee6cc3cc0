import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { EssentialSseRead } from './essential-relay';
import { stopChild } from '../floor/floor-process';

/** The essential program's three processes, named as its CPU is broken down. */
export const ESSENTIAL_PARTS = {
  api: 'essential api (POST: token check, claim and run.created appends)',
  worker: 'essential worker (worker loop and projection)',
  relay: "essential relay (SSE: token check, the run's events)",
} as const;

/** How results.md names the baseline. */
export function essentialWhat(read: EssentialSseRead, measurements: number): string {
  const sse = { stored: 'core subscription and stored reads', direct: 'core subscription and direct gets', ordered: 'an ordered consumer' }[
    read
  ];
  return `the essential work of a run on the same parts (raw node:http, jose, @nats-io clients and pg: a token check each request, claim and run.created appends, 3 more appends, one upserted row per run, SSE by ${sse}), same load and window, median of ${measurements}`;
}

/** Which of its parts does the work of which of ours. */
export const ESSENTIAL_COUNTERPARTS: ReadonlyMap<string, string> = new Map([
  ['api', ESSENTIAL_PARTS.api],
  ['run-worker', ESSENTIAL_PARTS.worker],
  ['stream-relay', ESSENTIAL_PARTS.relay],
  ['nats-server', 'nats-server'],
  ['postgres', 'postgres'],
]);

export interface EssentialProcesses {
  /** The create's base URL, `http://127.0.0.1:<port>/api/v1`. */
  readonly apiUrl: string;
  /** The event stream's base URL. */
  readonly relayUrl: string;
  /** Each process's id by its part's name (ESSENTIAL_PARTS). */
  readonly pids: ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

export interface EssentialEnv {
  readonly natsUrl: string;
  readonly databaseUrl: string;
  readonly schema: string;
  readonly namespace: string;
  readonly publicKeyFile: string;
  /** How its relay reads a run's events (essential-relay.ts). */
  readonly sseRead: EssentialSseRead;
}

/**
 * Starts essential/main.ts (compiled under distDir) three times, as its api, worker and relay, and
 * resolves once each has said it is ready. Their stdin is a pipe from the bench: when the bench ends,
 * however, they stop.
 */
export async function startEssential(distDir: string, nodeArgs: readonly string[], env: EssentialEnv): Promise<EssentialProcesses> {
  const children: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.map(stopChild));
  };
  try {
    const start = (role: keyof typeof ESSENTIAL_PARTS): Promise<{ url: string; pid: number }> => {
      const child = spawn(process.execPath, [...nodeArgs, join(distDir, 'apps/bench/src/essential/main.js'), role], {
        env: {
          PATH: process.env['PATH'] ?? '',
          NATS_URL: env.natsUrl,
          DATABASE_URL: env.databaseUrl,
          DATABASE_SCHEMA: env.schema,
          BENCH_NAMESPACE: env.namespace,
          PUBLIC_KEY_FILE: env.publicKeyFile,
          ESSENTIAL_SSE: env.sseRead,
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      children.push(child);
      return new Promise((resolve, reject) => {
        let buffered = '';
        child.stdout!.setEncoding('utf8');
        child.stdout!.on('data', (chunk: string) => {
          buffered += chunk;
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          for (const line of lines) {
            if (line.startsWith('ready') && child.pid !== undefined) {
              resolve({ url: line.slice('ready '.length), pid: child.pid });
            }
          }
        });
        child.once('exit', (code, signal) =>
          reject(new Error(`the essential ${role} exited (${signal ?? `code ${code}`}) before it was ready`)),
        );
        // A child that hangs at start (a connect without a timeout) would hang the bench.
        setTimeout(() => reject(new Error(`the essential ${role} was not ready within ${READY_WITHIN_MS} ms`)), READY_WITHIN_MS).unref();
      });
    };
    // The worker first: its consumers exist before the first run is created.
    const worker = await start('worker');
    const [api, relay] = await Promise.all([start('api'), start('relay')]);
    return {
      apiUrl: api.url,
      relayUrl: relay.url,
      pids: new Map([
        [ESSENTIAL_PARTS.api, api.pid],
        [ESSENTIAL_PARTS.worker, worker.pid],
        [ESSENTIAL_PARTS.relay, relay.pid],
      ]),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** How long an essential process may take to say it is ready. */
const READY_WITHIN_MS = 60_000;
