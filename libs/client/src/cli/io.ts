import type { Writable } from 'node:stream';
import { EXIT, type ExitCode } from './exit-codes';

/** What the CLI touches of the outside world, injected so tests can run it in-process. */
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  out(line: string): void;
  err(line: string): void;
  /** True when stderr is a terminal: then a live status line is drawn. */
  readonly interactive: boolean;
  /** Rewrites the live status line (only when interactive). */
  status(text: string): void;
  now(): number;
}

export function processIo(): CliIo {
  endOnOutputFailure(process.stdout, process.stderr, (code) => process.exit(code));
  const interactive = process.stderr.isTTY === true;
  let statusShown = false;
  const clearStatus = (): void => {
    if (statusShown) {
      process.stderr.write('\r\x1b[2K');
      statusShown = false;
    }
  };
  return {
    env: process.env,
    home: process.env['HOME'] ?? '',
    interactive,
    out: (line) => {
      clearStatus();
      process.stdout.write(`${line}\n`);
    },
    err: (line) => {
      clearStatus();
      process.stderr.write(`${line}\n`);
    },
    status: (text) => {
      if (interactive) {
        process.stderr.write(`\r\x1b[2K${text}`);
        statusShown = text !== '';
      }
    },
    now: () => Date.now(),
  };
}

/**
 * A write to stdout or stderr that failed ends wrs at once, with no stack trace: EPIPE means the reader
 * closed the pipe (e.g. `| head -1`), which is its choice, so exit 0; exit 1 would say the run failed. Any
 * other failure (a full disk, `>/dev/full`, a terminal gone) exits 74: the output is incomplete. When
 * stdout failed, stderr gets one line naming the error's code (ENOSPC), never the text that was written
 * nor the error's message, so no token. Node reports these failures as the stream's 'error' event, after
 * write() returned: unhandled, it was an uncaught exception (a stack trace, exit 1).
 */
export function endOnOutputFailure(stdout: Writable, stderr: Writable, exit: (code: ExitCode) => void): void {
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      exit(EXIT.ok);
      return;
    }
    const code = typeof error.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(error.code) ? ` (${error.code})` : '';
    try {
      stderr.write(`wrs: writing to stdout failed${code}; the output is incomplete\n`);
    } catch {
      // Nowhere left to say it: the exit code does.
    }
    exit(EXIT.outputFailed);
  });
  stderr.on('error', (error: NodeJS.ErrnoException) => exit(error.code === 'EPIPE' ? EXIT.ok : EXIT.outputFailed));
}
