import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What `npm start` tells the development tools about the stack it runs, so `npm run token` creates
 * the workspace where that stack looks (its schema) and signs for what it checks, instead of assuming
 * the defaults. Kept beside the development keys: the stack trusts exactly those keys.
 */
export interface RunningStack {
  readonly pid: number;
  readonly baseUrl: string;
  readonly databaseUrl: string;
  readonly databaseSchema: string;
  readonly namespace: string;
  readonly authIssuer: string;
  readonly authAudience: string;
}

export function runningStackFile(keysDir: string): string {
  return join(keysDir, 'running-stack.json');
}

export function recordRunningStack(keysDir: string, stack: RunningStack): void {
  // The database URL may carry a password: only the owner reads the file (as with the keys beside it).
  writeFileSync(runningStackFile(keysDir), `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
}

export function forgetRunningStack(keysDir: string, pid = process.pid): void {
  if (readRunningStack(keysDir)?.pid === pid) {
    rmSync(runningStackFile(keysDir), { force: true });
  }
}

/** The stack recorded in keysDir if its process still lives (a killed stack leaves a stale file). */
export function readRunningStack(keysDir: string): RunningStack | undefined {
  let stack: RunningStack;
  try {
    stack = JSON.parse(readFileSync(runningStackFile(keysDir), 'utf8')) as RunningStack;
  } catch {
    return undefined;
  }
  try {
    process.kill(stack.pid, 0);
  } catch (error) {
    // EPERM: alive, another user's. ESRCH: gone.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') {
      return undefined;
    }
  }
  return stack;
}
