import type { CancelReason, Failover, Failure, Placement, RunEvent, WaitReason, Workload } from './run.events';

export const RUN_STATES = ['queued', 'starting', 'running', 'canceling', 'succeeded', 'failed', 'canceled'] as const;
export type RunStateName = (typeof RUN_STATES)[number];

const TERMINAL_STATES: ReadonlySet<RunStateName> = new Set(['succeeded', 'failed', 'canceled']);

export function isTerminalState(state: RunStateName): boolean {
  return TERMINAL_STATES.has(state);
}

/** The derived state of one Run: what a fold of its events says, nothing more. */
export interface RunState {
  readonly runId: string;
  readonly workspaceId: string;
  readonly state: RunStateName;
  readonly workload: Workload;
  readonly requested: { readonly provider: string; readonly region: string };
  readonly placement: Placement | null;
  readonly idempotencyKey: string;
  readonly createdAt: string;
  readonly dispatchedAt: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly exitCode: number | null;
  readonly failure: Failure | null;
  readonly cancellation: { readonly requestedBy: string; readonly requestedAt: string; readonly reason?: CancelReason } | null;
  /** When the service cancels the run if it has not finished; absent or null: no deadline. */
  readonly deadline?: string | null;
  /** How many log lines the run has recorded (the lines themselves are on the event stream). */
  readonly logLines: number;
  /**
   * Dispatches a provider refused for certain, oldest first: the next placement skips them. Absent
   * in rows projected before refusals existed, which means none.
   */
  readonly refusals?: readonly Failover[];
  /** Why a queued run is not running yet, and since when; absent (or null) once placed, or never waited. */
  readonly waiting?: { readonly reason: WaitReason; readonly message: string; readonly since: string } | null;
}

/** `null` is the state of a run that has no events yet. */
export type MaybeRunState = RunState | null;

export function evolve(current: MaybeRunState, event: RunEvent): MaybeRunState {
  if (event.type === 'run.created') {
    // A second creation event cannot change an existing run: the first one wins.
    if (current) {
      return current;
    }
    const d = event.data;
    return {
      runId: d.runId,
      workspaceId: d.workspaceId,
      state: 'queued',
      workload: d.workload,
      requested: { provider: d.provider, region: d.region },
      placement: null,
      idempotencyKey: d.idempotencyKey,
      createdAt: d.at,
      dispatchedAt: null,
      startedAt: null,
      finishedAt: null,
      exitCode: null,
      failure: null,
      cancellation: null,
      logLines: 0,
      ...(d.deadline ? { deadline: d.deadline } : {}),
    };
  }
  // Events for a run that was never created carry nothing to fold into.
  if (!current) {
    return current;
  }
  switch (event.type) {
    case 'run.waiting':
      return { ...current, waiting: { reason: event.data.reason, message: event.data.message, since: event.data.at } };
    case 'run.dispatched':
      return { ...current, state: 'starting', placement: event.data.placement, dispatchedAt: event.data.at, waiting: null };
    case 'run.dispatch_refused':
      return {
        ...current,
        state: 'queued',
        placement: null,
        dispatchedAt: null,
        refusals: [...(current.refusals ?? []), event.data.refusal],
      };
    case 'run.started':
      return { ...current, state: 'running', startedAt: event.data.at };
    case 'run.log':
      return { ...current, logLines: Math.max(current.logLines, event.data.index + 1) };
    case 'run.succeeded':
      return { ...current, state: 'succeeded', exitCode: 0, finishedAt: event.data.at };
    case 'run.failed':
      return {
        ...current,
        state: 'failed',
        exitCode: event.data.exitCode,
        failure: event.data.failure,
        finishedAt: event.data.at,
      };
    case 'run.cancel_requested':
      return {
        ...current,
        state: 'canceling',
        cancellation: cancellationOf(event.data),
      };
    case 'run.canceled':
      return {
        ...current,
        state: 'canceled',
        finishedAt: event.data.at,
        cancellation: current.cancellation ?? cancellationOf(event.data),
      };
    default:
      return assertNever(event);
  }
}

function cancellationOf(data: {
  readonly requestedBy: string;
  readonly reason?: CancelReason;
  readonly at: string;
}): NonNullable<RunState['cancellation']> {
  return { requestedBy: data.requestedBy, requestedAt: data.at, ...(data.reason ? { reason: data.reason } : {}) };
}

export function fold(events: readonly RunEvent[]): MaybeRunState {
  return events.reduce<MaybeRunState>(evolve, null);
}

export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
