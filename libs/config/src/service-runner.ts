/**
 * Runs a service's main: start it, stop it cleanly on SIGTERM/SIGINT, and turn start-up failures that
 * an operator can fix (bad configuration, a dependency that is down) into one clear line and exit 1.
 */
export function runService(name: string, start: () => Promise<() => Promise<void>>): Promise<void> {
  return start().then(
    (stop) => {
      let stopping = false;
      const shutdown = (signal: string): void => {
        if (stopping) {
          return;
        }
        stopping = true;
        console.log(JSON.stringify({ level: 'info', service: name, msg: 'stopping', signal }));
        stop().then(
          () => process.exit(0),
          (error: unknown) => {
            console.error(`${name}: error while stopping: ${String(error)}`);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    },
    (error: unknown) => {
      const known = error instanceof Error && /Error$/.test(error.name) && OPERATOR_ERRORS.has(error.name);
      console.error(`${name}: ${known ? error.message : describe(error)}`);
      process.exit(1);
    },
  );
}

/** Failures whose message says everything an operator needs: no stack trace for these. */
const OPERATOR_ERRORS = new Set(['ConfigError', 'DependencyError', 'DatabaseUnavailableError']);

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
