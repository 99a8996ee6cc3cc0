import {
  LOG_LIMITS,
  type CancelReason,
  type Failover,
  type Failure,
  type Placement,
  type RunCreation,
  type RunEvent,
  type WaitReason,
} from './run.events';
import { assertNever, isTerminalState, type MaybeRunState } from './run.state';

/**
 * Commands carry their time (`now`) and ids in, so deciding stays pure. A command that would change
 * nothing decides `[]`: re-sending a command is always safe.
 */
export type RunCommand =
  | ({ readonly type: 'CreateRun'; readonly now: string } & RunCreation)
  | { readonly type: 'DispatchRun'; readonly placement: Placement; readonly now: string }
  /** No candidate can take the queued run now; decides an event only when the reason changes. */
  | { readonly type: 'WaitRun'; readonly reason: WaitReason; readonly message: string; readonly now: string }
  /** The provider the run was dispatched to refused it for certain: nothing runs there. */
  | { readonly type: 'RefuseDispatch'; readonly refusal: Failover; readonly now: string }
  | { readonly type: 'MarkRunStarted'; readonly now: string }
  | {
      readonly type: 'RecordLogs';
      /** Lines numbered from `fromIndex`; those the run already has are skipped, so a re-send is safe. */
      readonly fromIndex: number;
      readonly lines: readonly { readonly stream: 'stdout' | 'stderr'; readonly line: string }[];
      readonly now: string;
    }
  | { readonly type: 'CompleteRun'; readonly exitCode: number; readonly now: string }
  | { readonly type: 'FailRun'; readonly failure: Failure; readonly now: string }
  | { readonly type: 'CancelRun'; readonly requestedBy: string; readonly reason?: CancelReason; readonly now: string }
  | { readonly type: 'ConfirmRunCanceled'; readonly now: string };

export type RunCommandType = RunCommand['type'];

export class RunNotFoundError extends Error {
  readonly code = 'run_not_found';
  constructor() {
    super('run not found');
  }
}

export function decide(command: RunCommand, state: MaybeRunState): RunEvent[] {
  if (command.type === 'CreateRun') {
    if (state) {
      return [];
    }
    const { runId, workspaceId, workload, provider, region, idempotencyKey, deadline, now } = command;
    return [
      {
        type: 'run.created',
        data: { runId, workspaceId, workload, provider, region, idempotencyKey, ...(deadline ? { deadline } : {}), at: now },
      },
    ];
  }
  if (!state) {
    throw new RunNotFoundError();
  }
  if (isTerminalState(state.state)) {
    return [];
  }
  switch (command.type) {
    case 'DispatchRun':
      return state.state === 'queued' ? [{ type: 'run.dispatched', data: { placement: command.placement, at: command.now } }] : [];
    case 'WaitRun':
      return state.state === 'queued' && state.waiting?.reason !== command.reason
        ? [{ type: 'run.waiting', data: { reason: command.reason, message: command.message, at: command.now } }]
        : [];
    case 'RefuseDispatch':
      // Only the dispatch it answers: a refusal that arrives after a cancel, or for an older placement, changes nothing.
      return state.state === 'starting' && isPlacedAt(state.placement, command.refusal)
        ? [{ type: 'run.dispatch_refused', data: { refusal: command.refusal, at: command.now } }]
        : [];
    case 'MarkRunStarted':
      return state.state === 'starting' ? [{ type: 'run.started', data: { at: command.now } }] : [];
    case 'RecordLogs':
      return logEvents(state.logLines, command);
    case 'CompleteRun':
      return completionEvents(state.state, command.exitCode, command.now);
    case 'FailRun':
      // While canceling, the cancel step decides the end: canceled once the provider confirms the
      // workload gone, failed cancel_unconfirmed if it cannot. A failure seen meanwhile changes nothing.
      if (state.state === 'canceling' && command.failure.code !== 'cancel_unconfirmed') {
        return [];
      }
      return [{ type: 'run.failed', data: { failure: command.failure, exitCode: null, at: command.now } }];
    case 'CancelRun':
      // A cancel that arrives before dispatch wins outright: the workload is never started.
      if (state.state === 'queued') {
        return [canceled(command, command.now)];
      }
      if (state.state === 'canceling') {
        return [];
      }
      return [{ type: 'run.cancel_requested', data: { requestedBy: command.requestedBy, ...reasonOf(command), at: command.now } }];
    case 'ConfirmRunCanceled':
      return state.state === 'canceling' ? [canceled(state.cancellation, command.now)] : [];
    default:
      return assertNever(command);
  }
}

function isPlacedAt(placement: Placement | null, where: { provider: string; region: string }): boolean {
  return placement !== null && placement.provider === where.provider && placement.region === where.region;
}

function completionEvents(current: string, exitCode: number, now: string): RunEvent[] {
  // Cancel always wins, and the cancel step confirms it: an exit seen while canceling changes nothing.
  if (current === 'canceling') {
    return [];
  }
  if (exitCode === 0) {
    return [{ type: 'run.succeeded', data: { exitCode: 0, at: now } }];
  }
  return [
    {
      type: 'run.failed',
      data: {
        failure: { code: 'workload_exit_nonzero', message: `the workload exited with code ${exitCode}` },
        exitCode,
        at: now,
      },
    },
  ];
}

function logEvents(recorded: number, command: Extract<RunCommand, { type: 'RecordLogs' }>): RunEvent[] {
  return command.lines
    .map((entry, offset) => ({ ...entry, index: command.fromIndex + offset }))
    .filter((entry) => entry.index >= recorded && entry.index < LOG_LIMITS.maxLinesPerRun)
    .map((entry) => ({
      type: 'run.log' as const,
      data: { index: entry.index, stream: entry.stream, line: storableLine(entry.line), at: command.now },
    }));
}

/**
 * A workload prints whatever bytes it likes, but an event must be storable everywhere it goes: NUL
 * and unpaired surrogates (which a cut can also leave) are refused by Postgres' jsonb, so one such
 * line would stop the run's projection for good. They become U+FFFD, as a bad byte does in UTF-8.
 */
export function storableLine(line: string): string {
  let cut = line.slice(0, LOG_LIMITS.maxLineLength);
  if (/[\uD800-\uDBFF]$/.test(cut)) {
    cut = cut.slice(0, -1);
  }
  return cut.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function canceled(asked: { readonly requestedBy: string; readonly reason?: CancelReason } | null | undefined, now: string): RunEvent {
  return { type: 'run.canceled', data: { requestedBy: asked?.requestedBy ?? 'system', ...reasonOf(asked), at: now } };
}

function reasonOf(asked: { readonly reason?: CancelReason } | null | undefined): { reason?: CancelReason } {
  return asked?.reason ? { reason: asked.reason } : {};
}
