/**
 * Where the essential program (essential/) keeps a run: streams and subjects of the same shape as the
 * stack's (StreamNames in @wrs/messaging), under a namespace of its own inside the bench's
 * (`<bench namespace>_essential`), so the bench's clean-up (streams named `<NAMESPACE>_...`) takes
 * them too and the stack never sees them. Plain functions: the essential processes import nothing of ours.
 */
export class EssentialNames {
  readonly eventsStream: string;
  readonly claimsStream: string;
  readonly table: string;

  constructor(
    benchNamespace: string,
    /** The bench's Postgres schema (its namespace), where the essential table lives. */
    readonly schema: string = benchNamespace,
  ) {
    this.namespace = `${benchNamespace}_essential`;
    this.eventsStream = `${this.namespace.toUpperCase()}_RUN_EVENTS`;
    this.claimsStream = `${this.namespace.toUpperCase()}_RUN_COMMANDS`;
    this.table = `"${schema}".essential_runs`;
  }

  readonly namespace: string;

  /** `<ns>.evt.<workspace>.<run>`, as the stack's run event subjects. */
  runEvents(workspaceId: string, runId: string): string {
    return `${this.namespace}.evt.${workspaceId}.${runId}`;
  }

  allRunEvents(): string {
    return `${this.namespace}.evt.>`;
  }

  /** `<ns>.idem.<workspace>.<key hash>`, as the stack's idempotency claims. */
  claim(workspaceId: string, keyHash: string): string {
    return `${this.namespace}.idem.${workspaceId}.${keyHash}`;
  }

  allClaims(): string {
    return `${this.namespace}.idem.>`;
  }

  workerConsumer(): string {
    return `${this.namespace}_worker`;
  }
}

/** The run's events after `run.created`, as a simulated run of the bench (SIM_DURATION_MS=50, no log lines) has them. */
export const LATER_EVENTS = ['run.dispatched', 'run.started', 'run.succeeded'] as const;

/** The simulator's defaults the bench's runs take (apps/run-worker/src/providers/simulator.provider.ts): 20 ms to start, then 50 ms. */
export const SIMULATED_START_DELAY_MS = 20;
export const SIMULATED_DURATION_MS = 50;

/** As the stack's events: the run's previous event's stream sequence, 0 for its first. */
export const PREVIOUS_EVENT_HEADER = 'Run-Previous-Seq';

/** Each event's JetStream message id is `<run id>:<index in the run>`; the index is also its SSE id. */
export function eventIndexOf(messageId: string | undefined): number {
  const index = Number(messageId?.slice(messageId.lastIndexOf(':') + 1));
  return Number.isInteger(index) ? index : -1;
}

/** The row state an event leaves a run in. */
export function stateAfter(type: string): string {
  return (
    { 'run.created': 'queued', 'run.dispatched': 'starting', 'run.started': 'running', 'run.succeeded': 'succeeded' }[type] ?? 'unknown'
  );
}
