import type { Workload } from './run.events';

/** The longest a run may take when its workload gives no time limit (a day). */
export const MAX_RUN_SECONDS = 86_400;

/** The workload's own time limit, or the longest a run may take. */
export function timeoutOf(workload: Workload): number {
  return workload.timeoutSeconds ?? MAX_RUN_SECONDS;
}

/**
 * Whether a run has outlived its workload's time limit at `nowMs`: running longer than it, or still
 * starting that long after its dispatch (a pod that is never scheduled, a container that never runs).
 */
export function hasTimedOut(
  run: { readonly state: string; readonly dispatchedAt: string | null; readonly startedAt: string | null; readonly workload: Workload },
  nowMs: number,
): boolean {
  const since = run.state === 'running' ? run.startedAt : run.state === 'starting' ? run.dispatchedAt : null;
  return since !== null && nowMs - Date.parse(since) > timeoutOf(run.workload) * 1000;
}

/** Whether an unfinished run not already being canceled has passed its deadline (`Cancel-After`) at `nowMs`. */
export function pastDeadline(run: { readonly state: string; readonly deadline?: string | null }, nowMs: number): boolean {
  const active = run.state === 'queued' || run.state === 'starting' || run.state === 'running';
  return active && !!run.deadline && Date.parse(run.deadline) <= nowMs;
}
