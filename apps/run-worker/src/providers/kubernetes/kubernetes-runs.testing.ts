import { randomUUID } from 'node:crypto';
import { toRunView, type Placement, type RunView, type Workload } from '@wrs/domain';

/** Where the Kubernetes provider's tests place their runs. */
export const K8S_PLACEMENT: Placement = {
  provider: 'k8s',
  region: 'eu-1',
  reason: 'test',
  candidates: [{ provider: 'k8s', region: 'eu-1' }],
};

/** A run dispatched to the test cluster, starting, for the Kubernetes provider's tests. */
export function kubernetesRunOf(workload: Partial<Workload> = {}, env: Record<string, string> = {}): RunView {
  const at = new Date().toISOString();
  return toRunView(
    {
      runId: randomUUID(),
      workspaceId: 'ws-k8s',
      state: 'starting',
      workload: { image: 'busybox:1.36', env, ...workload },
      requested: { provider: 'k8s', region: 'eu-1' },
      placement: K8S_PLACEMENT,
      idempotencyKey: 'k',
      createdAt: at,
      dispatchedAt: at,
      startedAt: null,
      finishedAt: null,
      exitCode: null,
      failure: null,
      cancellation: null,
      logLines: 0,
    },
    1,
  );
}
