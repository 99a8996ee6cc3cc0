/** Where a service is in its life: readiness reads `draining`; main sets the delay from its config. */
export class ServiceLifecycle {
  draining = false;
  /** How long to keep serving (readiness false) after SIGTERM before stopping: SHUTDOWN_DELAY_MS. */
  drainDelayMs = 0;
}

/**
 * Runs a service's main. Start-up failures an operator can fix become one clear line and exit 1.
 * On SIGTERM/SIGINT the service turns unready, serves through the drain delay so Kubernetes stops routing
 * to it, then stops; a signal during start-up stops it once started.
 */
export function runService(name: string, start: (lifecycle: ServiceLifecycle) => Promise<() => Promise<void>>): Promise<void> {
  const lifecycle = new ServiceLifecycle();
  let stopping = false;
  const started = start(lifecycle);
  const shutdown = (signal: string): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    lifecycle.draining = true;
    console.log(JSON.stringify({ level: 'info', service: name, msg: 'stopping', signal, drainDelayMs: lifecycle.drainDelayMs }));
    started
      .then(async (stop) => {
        await new Promise((resolve) => setTimeout(resolve, lifecycle.drainDelayMs));
        await stop();
      })
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`${name}: error while stopping: ${String(error)}`);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return started.then(
    () => undefined,
    (error: unknown) => {
      const known = error instanceof Error && /Error$/.test(error.name) && OPERATOR_ERRORS.has(error.name);
      console.error(`${name}: ${known ? error.message : describe(error)}`);
      process.exit(1);
    },
  );
}

/** Failures whose message says everything an operator needs: no stack trace for these. */
const OPERATOR_ERRORS = new Set(['ConfigError', 'DependencyError', 'DatabaseUnavailableError', 'SchemaBehindError']);

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
