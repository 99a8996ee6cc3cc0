import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The built `wrs` command line. */
export const BUILT_CLI = join(__dirname, '..', '..', '..', 'dist', 'libs', 'client', 'src', 'cli', 'main.js');

export interface Spawned {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command as a user would: its own process, only PATH and `env` in its environment; answers once its output is closed. */
export function spawned(command: string, args: string[], env: Record<string, string>): Promise<Spawned> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The built `wrs` with these arguments. */
export function wrs(args: string[], env: Record<string, string>): Promise<Spawned> {
  return spawned(process.execPath, [BUILT_CLI, ...args], env);
}
