import type { HeldWorkload } from './providers/provider';

/** Why a workload is removed: its run is over, or no run of this installation has it. */
export type RemovalReason = 'terminal' | 'orphan';

/** What the cleanup does next with one workload, from what the projection says of its run. */
export type Verdict =
  { readonly kind: 'keep' } | { readonly kind: 'remove'; readonly reason: RemovalReason } | { readonly kind: 'ask-events' };

/**
 * `terminal` is what the projection says of the workload's run (undefined: not projected). A run not
 * projected yet may be one just created, whose workload was started before its projection caught up
 * (or whose projection is being rebuilt): it is kept for the grace period, and after it only if the
 * event store has no event of the run.
 */
export function verdictOf(workload: HeldWorkload, terminal: boolean | undefined, nowMs: number, graceMs: number): Verdict {
  if (terminal === true) {
    return { kind: 'remove', reason: 'terminal' };
  }
  if (terminal === false || nowMs - workload.createdAtMs < graceMs) {
    return { kind: 'keep' };
  }
  return workload.workspaceId === null ? { kind: 'remove', reason: 'orphan' } : { kind: 'ask-events' };
}
