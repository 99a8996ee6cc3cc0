import type { RunView } from './run.view';

/** A Run as the contract's `Run` schema describes it: its `version` is the last state change's (what the ETag names). */
export function toRunResource(run: RunView): Record<string, unknown> {
  return {
    id: run.runId,
    workspaceId: run.workspaceId,
    state: run.state,
    terminal: run.terminal,
    workload: run.workload,
    provider: run.requested.provider,
    region: run.requested.region,
    placement: run.placement,
    idempotencyKey: run.idempotencyKey,
    createdAt: run.createdAt,
    dispatchedAt: run.dispatchedAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    exitCode: run.exitCode,
    failure: run.failure,
    cancellation: run.cancellation,
    waiting: run.state === 'queued' ? (run.waiting ?? null) : null,
    deadline: run.deadline ?? null,
    logLines: run.logLines,
    version: run.stateVersion,
  };
}
