import type { Workload } from './run.events';

/** The longest a run may take when its workload gives no time limit (a day). */
export const MAX_RUN_SECONDS = 86_400;

/** The workload's own time limit, or the longest a run may take. */
export function timeoutOf(workload: Workload): number {
  return workload.timeoutSeconds ?? MAX_RUN_SECONDS;
}

/** Whether a running run has outlived its workload's time limit at `nowMs`. */
export function hasTimedOut(
  run: { readonly state: string; readonly startedAt: string | null; readonly workload: Workload },
  nowMs: number,
): boolean {
  return run.state === 'running' && run.startedAt !== null && nowMs - Date.parse(run.startedAt) > timeoutOf(run.workload) * 1000;
}

/** Whether an unfinished run not already being canceled has passed its deadline (`Cancel-After`) at `nowMs`. */
export function pastDeadline(run: { readonly state: string; readonly deadline?: string | null }, nowMs: number): boolean {
  const active = run.state === 'queued' || run.state === 'starting' || run.state === 'running';
  return active && !!run.deadline && Date.parse(run.deadline) <= nowMs;
}
