import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { parseAnnouncement } from '@wrs/observability';

export interface FloorProcess {
  /** The base URL, `http://127.0.0.1:<port>/api/v1`. */
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the framework floor (floor/main.ts, compiled under distDir) as a Node process of its own,
 * as LocalStack starts the services, and resolves once it has said where it listens.
 */
export function startFloor(distDir: string, nodeArgs: readonly string[], env: Record<string, string>): Promise<FloorProcess> {
  const child = spawn(process.execPath, [...nodeArgs, join(distDir, 'apps/bench/src/floor/main.js')], {
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const url = parseAnnouncement(line)?.url;
        if (url && child.pid !== undefined) {
          resolve({ url: `${url.replace(/\/$/, '')}/api/v1`, pid: child.pid, stop: () => stopChild(child) });
        }
      }
    });
    child.once('exit', (code, signal) => reject(new Error(`the framework floor exited (${signal ?? `code ${code}`}) before it listened`)));
  });
}

/** SIGTERM, so a --cpu-prof profile is written, then the exit (also the essential processes' stop). */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}
