import type { RunView } from '@wrs/domain';

export const LABEL_RUN = 'io.workload-run-service.run';
export const LABEL_WORKSPACE = 'io.workload-run-service.workspace';
/** The installation (NAMESPACE) that made the container: the cleanup never touches another's. */
export const LABEL_OWNER = 'io.workload-run-service.owner';
/** What the pull before this container did: its first log line, stable across worker restarts. */
export const LABEL_PULL = 'io.workload-run-service.pull';

/** The container is named after its run, so a second submit of the run finds it instead of making another. */
export function containerName(run: RunView): string {
  return `wrs-${run.runId}`;
}
