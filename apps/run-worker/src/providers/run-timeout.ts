import type { RunView } from '@wrs/domain';

/** The longest a run may take when its workload gives no time limit (a day). */
const MAX_RUN_SECONDS = 86_400;

/**
 * The workload's own time limit, or the longest a run may take. Here rather than in the reconciler:
 * providers give it to the place that runs the workload (a Job's deadline) and must not import the reconciler.
 */
export function timeoutOf(run: RunView): number {
  return run.workload.timeoutSeconds ?? MAX_RUN_SECONDS;
}
