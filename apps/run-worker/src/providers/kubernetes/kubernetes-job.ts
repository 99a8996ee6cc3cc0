import { createHash } from 'node:crypto';
import type { V1Job } from '@kubernetes/client-node';
import { timeoutOf, type RunView } from '@wrs/domain';

export const LABEL_RUN = 'workload-run-service.io/run';
export const LABEL_WORKSPACE = 'workload-run-service.io/workspace';
/** The installation (NAMESPACE) that made the Job: the cleanup never touches another's. */
export const LABEL_OWNER = 'workload-run-service.io/owner';
export const ANNOTATION_WORKSPACE = 'workload-run-service.io/workspace-id';
/** The run's own labels: `team` as `label.workload-run-service.io/team`, so none can pose as the service's. */
export const RUN_LABEL_PREFIX = 'label.workload-run-service.io/';
/** All of the run's labels, as JSON: a key with a prefix of its own (`example.com/tier`) cannot take a second one. */
export const ANNOTATION_LABELS = 'workload-run-service.io/labels';
export const WORKLOAD_CONTAINER = 'workload';

/** A finished Job the worker failed to delete (it died first) is removed by the cluster after this. */
const TTL_AFTER_FINISHED_SECONDS = 3600;
/** The workload's uid when its image does not say: any non-root uid will do; 65532 is the usual "nonroot". */
const NON_ROOT_UID = 65532;

/** Requests and limits of the workload's container when its workload does not say. */
export const DEFAULT_RESOURCES = {
  requests: { cpu: '100m', memory: '128Mi' },
  limits: { cpu: '1', memory: '512Mi' },
} as const;

/** Named after the run, so a second submit of the same run meets 409 AlreadyExists and re-attaches. */
export function jobName(run: Pick<RunView, 'runId'>): string {
  return `wrs-${run.runId}`;
}

/**
 * The run as a `batch/v1` Job: one pod, never retried (the run's outcome is the workload's first
 * exit), killed by the cluster at the run's timeout, as an unprivileged user.
 */
export function jobFor(run: RunView, namespace: string, owner: string): V1Job {
  const labels = {
    ...runLabels(run),
    [LABEL_RUN]: run.runId,
    [LABEL_WORKSPACE]: labelValue(run.workspaceId),
    [LABEL_OWNER]: labelValue(owner),
  };
  const annotations = {
    [ANNOTATION_WORKSPACE]: run.workspaceId,
    ...(run.workload.labels ? { [ANNOTATION_LABELS]: JSON.stringify(run.workload.labels) } : {}),
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: jobName(run), namespace, labels, annotations },
    spec: {
      // Made suspended (no pod) and resumed by the submit once the run still wants it: a cancel recorded
      // meanwhile never runs the workload. The deadline counts from the resume.
      suspend: true,
      backoffLimit: 0,
      activeDeadlineSeconds: timeoutOf(run.workload),
      ttlSecondsAfterFinished: TTL_AFTER_FINISHED_SECONDS,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: NON_ROOT_UID,
            runAsGroup: NON_ROOT_UID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: WORKLOAD_CONTAINER,
              image: run.workload.image,
              ...(run.workload.command ? { command: [...run.workload.command] } : {}),
              ...(run.workload.args ? { args: [...run.workload.args] } : {}),
              env: Object.entries(run.workload.env ?? {}).map(([name, value]) => ({ name, value })),
              resources: resourcesOf(run),
              securityContext: { allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    },
  };
}

/** The run's unprefixed labels under RUN_LABEL_PREFIX (their form is already Kubernetes'). */
function runLabels(run: RunView): Record<string, string> {
  return Object.fromEntries(
    Object.entries(run.workload.labels ?? {})
      .filter(([key]) => !key.includes('/'))
      .map(([key, value]) => [`${RUN_LABEL_PREFIX}${key}`, value]),
  );
}

/** A quantity the workload gives is both reserved and the limit (the run gets what it asked for, no more). */
function resourcesOf(run: RunView): { requests: Record<string, string>; limits: Record<string, string> } {
  const asked = run.workload.resources ?? {};
  const pick = (name: 'cpu' | 'memory') => ({
    request: asked[name] ?? DEFAULT_RESOURCES.requests[name],
    limit: asked[name] ?? DEFAULT_RESOURCES.limits[name],
  });
  const cpu = pick('cpu');
  const memory = pick('memory');
  return { requests: { cpu: cpu.request, memory: memory.request }, limits: { cpu: cpu.limit, memory: memory.limit } };
}

/**
 * A label value must be at most 63 characters of [A-Za-z0-9_.-] starting and ending alphanumeric;
 * a workspace id that is not is labelled by a stable digest (the annotation keeps it whole).
 */
export function labelValue(text: string): string {
  if (/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(text)) {
    return text;
  }
  return `sha256-${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}
