import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@wrs/devstack';
import { isolatedEnvironment, patience, type IsolatedEnvironment } from '@wrs/testing';

const DIST = join(__dirname, '..', '..', '..', 'dist');
const START = join(DIST, 'scripts', 'src', 'start-stack.js');
const MINT = join(DIST, 'scripts', 'src', 'mint-token.js');
const run = promisify(execFile);

/** `npm start` as a newcomer runs it (the same entry point, its own process), in an isolated corner. */
export interface NpmStart {
  readonly process: ChildProcess;
  readonly baseUrl: string;
  /** Everything it printed, stdout and stderr. */
  readonly output: () => string;
  readonly env: IsolatedEnvironment;
  /** Where its development keys (and its running-stack record) are. */
  readonly keysDir: string;
  /** `npm run token` with only the variables given (plus PATH and the keys folder). */
  mint(args: string[], env?: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

/** Starts dist/scripts/src/start-stack.js; `vars` are the newcomer's environment on top of the isolated servers. */
export async function npmStart(vars: Record<string, string> = {}): Promise<NpmStart> {
  const env = await isolatedEnvironment();
  const keysDir = mkdtempSync(join(tmpdir(), 'wrs-npm-start-keys-'));
  const port = await freePort();
  const child = spawn(process.execPath, [START], {
    env: {
      PATH: process.env['PATH'] ?? '',
      NATS_URL: env.natsUrl,
      DATABASE_URL: env.databaseUrl,
      DATABASE_SCHEMA: env.schema,
      REDIS_URL: env.redisUrl,
      NAMESPACE: env.namespace,
      PORT: String(port),
      DEV_KEYS_DIR: keysDir,
      ...vars,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), patience(180_000));
    const check = (): void => {
      const up = /Base URL: (\S+)/.exec(output);
      // The lines after the base URL (providers, operator ports) end with the operator ports.
      if (up?.[1] && output.includes('Operator ports')) {
        clearTimeout(timer);
        resolve(up[1]);
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}):\n${output}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGTERM');
    await env.cleanup();
    throw error;
  });
  return {
    process: child,
    baseUrl,
    output: () => output,
    env,
    keysDir,
    mint: (args, extra = {}) =>
      run(process.execPath, [MINT, ...args], { env: { PATH: process.env['PATH'] ?? '', DEV_KEYS_DIR: keysDir, ...extra } }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
      ),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await env.cleanup();
    },
  };
}

/** Runs start-stack to its end (it fails before starting anything) and returns what it said. */
export function npmStartFailing(vars: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [START], {
      env: { PATH: process.env['PATH'] ?? '', ...vars },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}
