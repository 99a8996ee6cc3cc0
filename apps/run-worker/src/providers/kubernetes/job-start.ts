import type { V1Job } from '@kubernetes/client-node';
import type { RunView } from '@wrs/domain';
import { ProviderError } from '../provider';
import { certainlyNotCreated, describeFailure, resumeJob, statusOf, type KubernetesApis } from './kubernetes-api';
import { jobFor, jobName } from './kubernetes-job';

/** One API call bounded in time, named for its error messages. */
export type BoundedCall = <T>(what: string, request: Promise<T>) => Promise<T>;

/** The run's Job as the server answered for it: which one it is, and whether it is still held back. */
export interface MadeJob {
  readonly uid: string;
  readonly resourceVersion: string;
  readonly suspended: boolean;
}

/**
 * Makes the run's Job suspended, or (409 AlreadyExists) finds the one an earlier attempt at this
 * dispatch made. A certain refusal is the provider's; a create that may have happened is unclear.
 */
export async function makeSuspended(apis: KubernetesApis, run: RunView, owner: string, call: BoundedCall): Promise<MadeJob> {
  try {
    return madeJob(
      await call('create the Job', apis.batch.createNamespacedJob({ namespace: apis.namespace, body: jobFor(run, apis.namespace, owner) })),
    );
  } catch (error) {
    if (statusOf(error) !== 409) {
      if (certainlyNotCreated(error)) {
        throw new ProviderError('provider_error', `the Kubernetes API refused the Job (${describeFailure(error)})`);
      }
      // Maybe created: not a refusal, so the run is not placed elsewhere; the next sweep submits again here.
      throw new Error(`creating the Job did not complete (${describeFailure(error)})`);
    }
  }
  const found = await call('read the Job', apis.batch.readNamespacedJob({ name: jobName(run), namespace: apis.namespace })).catch(
    (error: unknown) => {
      throw new Error(`reading the Job made before did not complete (${describeFailure(error)})`);
    },
  );
  return madeJob(found);
}

/**
 * Resumes the Job if it is still suspended (its maker may have died before resuming it; a Job that runs
 * or ran is left alone). The uid in the patch makes the server refuse it for a later Job of this run
 * under the same name (made after a cancel deleted this one): not this submit's to start. A refusal of
 * the patch itself (no `patch` right) is the provider's: the Job, unchanged since it was read and so
 * never started, is deleted and the run may go elsewhere. Anything else is unclear.
 */
export async function resumeIfSuspended(apis: KubernetesApis, run: RunView, job: MadeJob, call: BoundedCall): Promise<void> {
  if (!job.suspended) {
    return;
  }
  try {
    await call('resume the Job', resumeJob(apis, jobName(run), job.uid));
  } catch (error) {
    const status = statusOf(error);
    if (status !== 401 && status !== 403) {
      throw new Error(`resuming the Job did not complete (${describeFailure(error)})`);
    }
    const preconditions = { uid: job.uid, resourceVersion: job.resourceVersion };
    const deleted = await call(
      'delete the unstarted Job',
      apis.batch.deleteNamespacedJob({ name: jobName(run), namespace: apis.namespace, body: { preconditions } }),
    ).then(
      () => true,
      () => false,
    );
    if (!deleted) {
      // Changed since it was read (another worker may have resumed it): it may run, so not a refusal.
      throw new Error(`resuming the Job was refused, and it changed meanwhile (${describeFailure(error)})`);
    }
    throw new ProviderError('provider_error', `the Kubernetes API refused to start the Job (${describeFailure(error)})`);
  }
}

function madeJob(job: V1Job): MadeJob {
  const { uid, resourceVersion } = job.metadata ?? {};
  if (!uid || !resourceVersion) {
    throw new Error("the Kubernetes API answered without the Job's uid and resourceVersion");
  }
  return { uid, resourceVersion, suspended: job.spec?.suspend === true };
}
