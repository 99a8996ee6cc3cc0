import type { V1ContainerState, V1Job, V1Pod } from '@kubernetes/client-node';
import { observationOf } from './kubernetes-observation';

const job = (conditions: { type: string; reason?: string; message?: string }[] = []): V1Job => ({
  spec: { activeDeadlineSeconds: 60, template: {} },
  status: { conditions: conditions.map((c) => ({ status: 'True', ...c })) },
});
const pod = (state: V1ContainerState, name = 'workload'): V1Pod => ({
  metadata: { name: 'p', creationTimestamp: new Date() },
  status: { containerStatuses: [{ name, image: 'i', imageID: '', ready: false, restartCount: 0, state }] },
});

describe('observationOf (Job conditions and pod state to a run phase)', () => {
  it('no pod yet, or a container being created, is pending', () => {
    expect(observationOf(job(), [])).toEqual({ phase: 'pending' });
    expect(observationOf(job(), [pod({ waiting: { reason: 'ContainerCreating' } })])).toEqual({ phase: 'pending' });
  });
  it('a running container is running', () => {
    expect(observationOf(job(), [pod({ running: { startedAt: new Date() } })])).toEqual({ phase: 'running' });
  });
  it('the exit code comes from the pod once the Job has its verdict', () => {
    expect(observationOf(job([{ type: 'Failed', reason: 'BackoffLimitExceeded' }]), [pod({ terminated: { exitCode: 3 } })])).toEqual({
      phase: 'exited',
      exitCode: 3,
    });
    expect(observationOf(job([{ type: 'Complete' }]), [])).toEqual({ phase: 'exited', exitCode: 0 });
  });
  it('a pod that ended before its Job has a verdict is still running: it may have been killed at the deadline', () => {
    expect(observationOf(job(), [pod({ terminated: { exitCode: 137 } })])).toEqual({ phase: 'running' });
    expect(observationOf(job(), [pod({ terminated: { exitCode: 0 } })])).toEqual({ phase: 'running' });
  });
  it("the cluster's deadline is timed out, even with a killed container (137)", () => {
    expect(observationOf(job([{ type: 'Failed', reason: 'DeadlineExceeded' }]), [pod({ terminated: { exitCode: 137 } })])).toMatchObject({
      phase: 'failed',
      code: 'timed_out',
    });
    expect(observationOf(job([{ type: 'FailureTarget', reason: 'DeadlineExceeded' }]), [])).toMatchObject({
      phase: 'failed',
      code: 'timed_out',
    });
  });
  it.each(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName'])('%s is image_not_found', (reason) => {
    expect(observationOf(job(), [pod({ waiting: { reason } })])).toMatchObject({ phase: 'failed', code: 'image_not_found' });
  });
  it('a pod that cannot start as specified (e.g. an image that insists on root) is a provider error', () => {
    expect(
      observationOf(job(), [
        pod({ waiting: { reason: 'CreateContainerConfigError', message: 'container has runAsNonRoot and image will run as root' } }),
      ]),
    ).toMatchObject({
      phase: 'failed',
      code: 'provider_error',
      reason: expect.stringContaining('runAsNonRoot'),
    });
  });
  it("a failed Job without a pod to ask is a provider error with the Job's reason", () => {
    expect(observationOf(job([{ type: 'Failed', reason: 'PodFailurePolicy' }]), [])).toMatchObject({
      phase: 'failed',
      code: 'provider_error',
      reason: expect.stringContaining('PodFailurePolicy'),
    });
  });
  it('reads only the workload container', () => {
    expect(observationOf(job(), [pod({ terminated: { exitCode: 9 } }, 'sidecar')])).toEqual({ phase: 'pending' });
  });
});
