import type { Exact, Immutable, RunList, RunResource } from '@wrs/contracts/types';
import type { RunView } from '@wrs/domain';

/**
 * A run as the api and the relay answer it, typed by the contract so a changed `Run` schema fails the type
 * check. `version` is the last state change's (what the ETag names).
 */
export function toRunResource(run: RunView): Immutable<RunResource> {
  return {
    id: run.runId,
    workspaceId: run.workspaceId,
    state: run.state,
    terminal: run.terminal,
    workload: exact<RunResource['workload']>()(run.workload),
    provider: run.requested.provider,
    region: run.requested.region,
    placement: exact<RunResource['placement']>()(run.placement),
    idempotencyKey: run.idempotencyKey,
    createdAt: run.createdAt,
    dispatchedAt: run.dispatchedAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    exitCode: run.exitCode,
    failure: exact<RunResource['failure']>()(run.failure),
    cancellation: exact<RunResource['cancellation']>()(run.cancellation),
    waiting: exact<RunResource['waiting']>()(run.state === 'queued' ? (run.waiting ?? null) : null),
    deadline: run.deadline ?? null,
    logLines: run.logLines,
    version: run.stateVersion,
  };
}

/** A page of runs (`GET /runs`): `nextCursor` names where the next page starts, null on the last. */
export function toRunList(runs: readonly RunView[], nextCursor: string | null): Immutable<RunList> {
  return { items: runs.map(toRunResource), nextCursor };
}

/** The value itself, checked to send nothing the contract type `T` lacks (see `Exact`). */
function exact<T>() {
  return <U extends Immutable<T>>(value: U & Exact<T, U>): Immutable<T> => value;
}
