import type { V1Job } from '@kubernetes/client-node';
import type { HeldWorkload } from '../provider';
import { ANNOTATION_WORKSPACE, labelValue, LABEL_OWNER, LABEL_RUN } from './kubernetes-job';

/** A workspace's cluster the provider may hold Jobs on: the place one of its credentials names. */
export interface ClusterPlace {
  readonly workspaceId: string;
  readonly region: string;
}

interface JobHandle {
  readonly place: ClusterPlace;
  readonly name: string;
}

/** The label selector of this installation's Jobs (any run). */
export function heldSelector(owner: string): string {
  return `${LABEL_RUN},${LABEL_OWNER}=${labelValue(owner)}`;
}

/** The listed Jobs as held workloads; the handle names the cluster they were listed on and the Job. */
export function heldJobs(jobs: readonly V1Job[], place: ClusterPlace, owner: string): HeldWorkload[] {
  return jobs.flatMap((job) => {
    const meta = job.metadata;
    const runId = meta?.labels?.[LABEL_RUN];
    // The server filters by label, but one that ignored the selector must not make us remove strangers.
    if (!meta?.name || !runId || meta.labels?.[LABEL_OWNER] !== labelValue(owner)) {
      return [];
    }
    const created = meta.creationTimestamp === undefined ? NaN : new Date(meta.creationTimestamp).getTime();
    const handle: JobHandle = { place, name: meta.name };
    return [
      {
        runId,
        // The annotation keeps the whole id (the label may be a digest of it).
        workspaceId: meta.annotations?.[ANNOTATION_WORKSPACE] ?? place.workspaceId,
        // No creation time: taken as just created, so the grace period protects it.
        createdAtMs: Number.isNaN(created) ? Date.now() : created,
        handle: JSON.stringify(handle),
      },
    ];
  });
}

export function parseHandle(handle: string): JobHandle {
  return JSON.parse(handle) as JobHandle;
}
