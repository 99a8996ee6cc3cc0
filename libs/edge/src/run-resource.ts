import type { Exact, Immutable, RunList, RunResource } from '@wrs/contracts/types';
import type { RunView } from '@wrs/domain';

/**
 * A run as both HTTP services answer it (the api's runs, the relay's reset event), typed by the contract:
 * a changed `Run` schema this does not satisfy fails the type check, as does a property it no longer has
 * (the literal's own, or one inside a domain value passed through `exact`). `version` is the last state change's (what the ETag names).
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
