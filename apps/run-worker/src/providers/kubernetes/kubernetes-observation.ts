import type { V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import type { Observation } from '../provider';
import { WORKLOAD_CONTAINER } from './kubernetes-job';

/** Waiting reasons that mean the image cannot be had: retrying will not help the run. */
const IMAGE_UNAVAILABLE = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
/** Waiting reasons that mean the pod as specified cannot start (e.g. the image insists on running as root). */
const UNSTARTABLE = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/**
 * Where the run is: the Job's conditions decide the end, and the pod gives the exit code. A pod that ended
 * before its Job has a verdict counts as running, so a pod killed at the deadline (exit 137) is not taken
 * for the workload's own failure before the Job says DeadlineExceeded.
 */
export function observationOf(job: V1Job, pods: readonly V1Pod[]): Observation {
  const container = workloadStatus(pods);
  const terminated = container?.state?.terminated ?? container?.lastState?.terminated;
  const conditions = job.status?.conditions ?? [];
  const ended = (type: string) => conditions.find((c) => c.type === type && c.status === 'True');
  const failed = ended('Failed') ?? ended('FailureTarget');
  if (failed?.reason === 'DeadlineExceeded') {
    return {
      phase: 'failed',
      code: 'timed_out',
      reason: `the cluster stopped the Job at its deadline (${job.spec?.activeDeadlineSeconds ?? '?'} s)`,
    };
  }
  if (ended('Complete') ?? ended('SuccessCriteriaMet')) {
    return { phase: 'exited', exitCode: terminated?.exitCode ?? 0 };
  }
  if (failed) {
    return terminated
      ? { phase: 'exited', exitCode: terminated.exitCode }
      : {
          phase: 'failed',
          code: 'provider_error',
          reason: `the Job failed (${failed.reason ?? 'no reason given'}: ${failed.message ?? ''})`.slice(0, 500),
        };
  }
  if (terminated) {
    return { phase: 'running' }; // Ended, but the Job controller has not given its verdict yet.
  }
  const waiting = container?.state?.waiting;
  if (waiting?.reason && IMAGE_UNAVAILABLE.has(waiting.reason)) {
    return { phase: 'failed', code: 'image_not_found', reason: `the cluster cannot pull the image (${waiting.reason})` };
  }
  if (waiting?.reason && UNSTARTABLE.has(waiting.reason)) {
    return {
      phase: 'failed',
      code: 'provider_error',
      reason: `the pod cannot start (${waiting.reason}: ${waiting.message ?? ''})`.slice(0, 500),
    };
  }
  return container?.state?.running ? { phase: 'running' } : { phase: 'pending' };
}

function workloadStatus(pods: readonly V1Pod[]): V1ContainerStatus | undefined {
  // backoffLimit 0: at most one pod; the newest one wins if the cluster ever made another.
  const newest = [...pods].sort((a, b) => stamp(b) - stamp(a))[0];
  return newest?.status?.containerStatuses?.find((c) => c.name === WORKLOAD_CONTAINER);
}

function stamp(pod: V1Pod): number {
  const created = pod.metadata?.creationTimestamp;
  return created ? new Date(created).getTime() : 0;
}
