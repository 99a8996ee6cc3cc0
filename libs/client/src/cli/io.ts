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
  exitQuietlyOnClosedPipe();
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
 * EPIPE means the reader closed the pipe (e.g. `| head -1`), which is its choice, so exit 0 at once with
 * no stack trace; exit 1 would say the run failed. Other output errors are still errors.
 */
function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') {
        process.exit(0);
      }
      throw error;
    });
  }
}
