import type { Immutable, RunResource } from '@wrs/contracts/types';
import type { RunView } from '@wrs/domain';

/**
 * A run as both HTTP services answer it (the api's runs, the relay's reset event), typed by the contract:
 * a changed `Run` schema this does not satisfy fails the type check. `version` is the last state change's (what the ETag names).
 */
export function toRunResource(run: RunView): Immutable<RunResource> {
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
