import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IPod } from 'kubernetes-models/v1/Pod';

/**
 * What the fake cluster's "kubelet" does with a Job's only container, read from its env (a test
 * double's knobs, named as such): FAKE_KUBELET_START_MS (default 50) until the container runs,
 * FAKE_KUBELET_RUN_MS (default 100) it runs, FAKE_KUBELET_EXIT_CODE (default 0), FAKE_KUBELET_LOG
 * (lines separated by "\n", written evenly while it runs). An image the cluster cannot pull never starts.
 */
export interface Script {
  readonly startMs: number;
  readonly runMs: number;
  readonly exitCode: number;
  readonly log: readonly string[];
  readonly imagePullable: boolean;
}

/** The state of a stored Job's pod at a moment, as a kubelet and the Job controller would report it. */
export interface PodMoment {
  readonly phase: 'none' | 'pulling-failed' | 'creating' | 'running' | 'terminated' | 'deadline';
  readonly elapsedMs: number;
  readonly exitCode?: number;
  /** When the container ended (terminated, deadline). */
  readonly endedAtMs?: number;
  readonly logLines: number;
}

/** A pod appears this long after its Job (the controller's and scheduler's work). */
export const POD_APPEARS_AFTER_MS = 20;
/** The Job's condition follows its pod's end by this long (the controller is not instant either). */
export const CONDITION_LAG_MS = 30;
/**
 * At the deadline the pod is killed (137) well before the Job says DeadlineExceeded: a client that
 * takes the killed pod's exit code for the workload's own is caught in this window.
 */
export const DEADLINE_CONDITION_LAG_MS = 500;

export function scriptOf(job: IJob, pullable: (image: string) => boolean): Script {
  const container = job.spec?.template.spec?.containers[0];
  const env = new Map((container?.env ?? []).map((e) => [e.name, e.value ?? '']));
  const num = (name: string, fallback: number) => {
    const n = Number(env.get(name));
    return env.has(name) && Number.isInteger(n) ? n : fallback;
  };
  const log = env.get('FAKE_KUBELET_LOG');
  return {
    startMs: num('FAKE_KUBELET_START_MS', 50),
    runMs: num('FAKE_KUBELET_RUN_MS', 100),
    exitCode: num('FAKE_KUBELET_EXIT_CODE', 0),
    log: log ? log.split('\n') : [],
    imagePullable: pullable(container?.image ?? ''),
  };
}

export function momentOf(script: Script, elapsedMs: number, deadlineSeconds: number | undefined): PodMoment {
  const deadlineMs = deadlineSeconds === undefined ? Infinity : deadlineSeconds * 1000;
  const endMs = script.startMs + script.runMs;
  const logLinesAt = (t: number) =>
    t < script.startMs
      ? 0
      : Math.min(script.log.length, Math.floor((script.log.length * (t - script.startMs)) / Math.max(1, script.runMs)));
  if (elapsedMs < POD_APPEARS_AFTER_MS) {
    return { phase: 'none', elapsedMs, logLines: 0 };
  }
  if (!script.imagePullable) {
    return elapsedMs >= deadlineMs
      ? { phase: 'deadline', elapsedMs, endedAtMs: deadlineMs, logLines: 0 }
      : { phase: 'pulling-failed', elapsedMs, logLines: 0 };
  }
  if (elapsedMs >= endMs && endMs < deadlineMs) {
    return { phase: 'terminated', elapsedMs, exitCode: script.exitCode, endedAtMs: endMs, logLines: script.log.length };
  }
  if (elapsedMs >= deadlineMs) {
    return { phase: 'deadline', elapsedMs, exitCode: 137, endedAtMs: deadlineMs, logLines: logLinesAt(deadlineMs) };
  }
  return elapsedMs < script.startMs
    ? { phase: 'creating', elapsedMs, logLines: 0 }
    : { phase: 'running', elapsedMs, logLines: logLinesAt(elapsedMs) };
}

/** The Job's status at a moment: active while its pod lives, then one Complete or Failed condition. */
export function jobStatusAt(moment: PodMoment, createdAt: Date): NonNullable<IJob['status']> {
  const startTime = createdAt.toISOString();
  const at = new Date(createdAt.getTime() + moment.elapsedMs).toISOString();
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    reason,
    message,
    lastProbeTime: at,
    lastTransitionTime: at,
  });
  if (moment.phase === 'deadline' && moment.elapsedMs < (moment.endedAtMs ?? 0) + DEADLINE_CONDITION_LAG_MS) {
    return { startTime, active: 1 };
  }
  if (moment.phase === 'deadline') {
    return {
      startTime,
      failed: 1,
      active: 0,
      conditions: [condition('Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline')],
    };
  }
  if (moment.phase === 'terminated' && moment.elapsedMs < (moment.endedAtMs ?? 0) + CONDITION_LAG_MS) {
    return { startTime, active: 1 }; // The pod has ended; the controller has not noticed yet.
  }
  if (moment.phase === 'terminated' && moment.exitCode === 0) {
    return { startTime, succeeded: 1, active: 0, completionTime: at, conditions: [condition('Complete', '', '')] };
  }
  if (moment.phase === 'terminated') {
    return {
      startTime,
      failed: 1,
      active: 0,
      conditions: [condition('Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit')],
    };
  }
  return moment.phase === 'none' ? { startTime } : { startTime, active: 1 };
}

/** The Job's pod at a moment (undefined before the controller made it). */
export function podAt(job: IJob, podName: string, moment: PodMoment, createdAt: Date): IPod | undefined {
  if (moment.phase === 'none') {
    return undefined;
  }
  const container = job.spec!.template.spec!.containers[0]!;
  const since = (ms: number) => new Date(createdAt.getTime() + ms).toISOString();
  const state = (() => {
    switch (moment.phase) {
      case 'pulling-failed':
        return {
          waiting:
            moment.elapsedMs < 200
              ? {
                  reason: 'ErrImagePull',
                  message: `rpc error: code = NotFound desc = failed to pull and unpack image "${container.image}": not found`,
                }
              : { reason: 'ImagePullBackOff', message: `Back-off pulling image "${container.image}"` },
        };
      case 'creating':
        return { waiting: { reason: 'ContainerCreating' } };
      case 'running':
        return { running: { startedAt: since(POD_APPEARS_AFTER_MS) } };
      case 'terminated':
      case 'deadline':
        return {
          terminated: {
            exitCode: moment.exitCode ?? 137,
            reason: moment.exitCode === 0 ? 'Completed' : 'Error',
            startedAt: since(POD_APPEARS_AFTER_MS),
            finishedAt: since(moment.endedAtMs ?? moment.elapsedMs),
          },
        };
    }
  })();
  const podPhase =
    moment.phase === 'running'
      ? 'Running'
      : moment.phase === 'terminated' || moment.phase === 'deadline'
        ? moment.exitCode === 0
          ? 'Succeeded'
          : 'Failed'
        : 'Pending';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName,
      namespace: job.metadata!.namespace!,
      uid: `${job.metadata!.uid!}-pod`,
      creationTimestamp: since(POD_APPEARS_AFTER_MS),
      labels: {
        ...(job.spec!.template.metadata?.labels ?? {}),
        'batch.kubernetes.io/job-name': job.metadata!.name!,
        'job-name': job.metadata!.name!,
      },
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          name: job.metadata!.name!,
          uid: job.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: job.spec!.template.spec!,
    status: {
      phase: podPhase,
      containerStatuses: [
        {
          name: container.name,
          image: container.image ?? '',
          imageID: '',
          ready: moment.phase === 'running',
          restartCount: 0,
          started: moment.phase === 'running',
          state,
        },
      ],
    },
  };
}
