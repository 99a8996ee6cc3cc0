import type { V1Job } from '@kubernetes/client-node';
import type { RunView } from '@wrs/domain';
import { ProviderError } from '../provider';
import { certainlyNotCreated, describeFailure, resumeJob, statusOf, type KubernetesApis } from './kubernetes-api';
import { jobFor, jobName } from './kubernetes-job';
import { serverRefused, TARGET_NOT_ALLOWED } from './server-guard';

/** One API call bounded in time, named for its error messages. */
export type BoundedCall = <T>(what: string, request: Promise<T>) => Promise<T>;

/** The run's Job as the server answered for it: which one it is, and whether it is still held back. */
export interface MadeJob {
  readonly uid: string;
  readonly suspended: boolean;
}

/**
 * Makes the run's Job suspended, or (409 AlreadyExists) finds the one an earlier submit of this run
 * made (the Job is named after the run). A certain refusal is the provider's; a create that may have happened is unclear.
 */
export async function makeSuspended(apis: KubernetesApis, run: RunView, owner: string, call: BoundedCall): Promise<MadeJob> {
  try {
    return madeJob(
      await call('create the Job', apis.batch.createNamespacedJob({ namespace: apis.namespace, body: jobFor(run, apis.namespace, owner) })),
    );
  } catch (error) {
    if (statusOf(error) !== 409) {
      if (serverRefused(error)) {
        // The first call of a submit: the run goes to its next candidate or fails, saying no more than this.
        throw new ProviderError('provider_error', `the credential's Kubernetes API server: ${TARGET_NOT_ALLOWED}`);
      }
      if (certainlyNotCreated(error)) {
        throw new ProviderError('provider_error', `the Kubernetes API refused the Job (${describeFailure(error)})`);
      }
      // Maybe created: not a refusal, so the run is not placed elsewhere; the next sweep submits again here.
      throw new Error(`creating the Job did not complete (${describeFailure(error)})`);
    }
  }
  const found = await readJob(apis, run, call).catch((error: unknown) => {
    throw new Error(`reading the Job made before did not complete (${describeFailure(error)})`);
  });
  return madeJob(found);
}

/**
 * Resumes the Job if it is still suspended (its maker may have died before resuming it; a Job that runs
 * or ran is left alone). The uid in the patch makes the server refuse it for a later Job of this run
 * under the same name (made after a cancel deleted this one): not this submit's to start. A refusal of
 * the patch itself (no `patch` right) is the provider's: see refuseUnstarted. Anything else is unclear.
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
    await refuseUnstarted(apis, run, job.uid, describeFailure(error), call);
  }
}

/** How many tries in all a delete gets when its Job changed meanwhile (its status written by the Job controller). */
const DELETE_TRIES = 3;

/**
 * The resume was refused: the Job, still suspended and never started, is deleted (read again first: the
 * Job controller writes its status, so the resourceVersion of the create's answer is already old) and
 * the submit is a refusal, so the run may go elsewhere. A delete refused as well leaves a Job that cannot
 * run (suspended, until someone with `patch` resumes it) in the cluster until someone deletes it by hand;
 * a refusal all the same. A Job that started or was replaced meanwhile may run: unclear.
 */
async function refuseUnstarted(apis: KubernetesApis, run: RunView, uid: string, refusal: string, call: BoundedCall): Promise<never> {
  const refused = new ProviderError('provider_error', `the Kubernetes API refused to start the Job (${refusal})`);
  for (let attempt = 1; attempt <= DELETE_TRIES; attempt++) {
    const now = await readJob(apis, run, call).catch((error: unknown) => {
      throw new Error(`resuming the Job was refused (${refusal}), and reading it again did not complete (${describeFailure(error)})`);
    });
    if (now.metadata?.uid !== uid || now.spec?.suspend !== true || now.status?.startTime || now.status?.active) {
      throw new Error(`resuming the Job was refused (${refusal}), and it changed meanwhile: it may run`);
    }
    const preconditions = { uid, resourceVersion: now.metadata.resourceVersion };
    const outcome = await call(
      'delete the unstarted Job',
      apis.batch.deleteNamespacedJob({
        name: jobName(run),
        namespace: apis.namespace,
        propagationPolicy: 'Background',
        body: { preconditions },
      }),
    ).then(
      () => null,
      (error: unknown) => error,
    );
    const status = outcome === null ? null : statusOf(outcome);
    if (outcome === null || status === 401 || status === 403 || status === 404) {
      throw refused;
    }
    if (status !== 409) {
      throw new Error(`resuming the Job was refused (${refusal}), and deleting it did not complete (${describeFailure(outcome)})`);
    }
  }
  throw new Error(`resuming the Job was refused (${refusal}), and it kept changing while it was deleted`);
}

function readJob(apis: KubernetesApis, run: RunView, call: BoundedCall): Promise<V1Job> {
  return call('read the Job', apis.batch.readNamespacedJob({ name: jobName(run), namespace: apis.namespace }));
}

function madeJob(job: V1Job): MadeJob {
  const { uid, deletionTimestamp } = job.metadata ?? {};
  if (!uid) {
    throw new Error("the Kubernetes API answered without the Job's uid");
  }
  if (deletionTimestamp) {
    // Being deleted (a cancel's, or the cleanup's): nothing to start; the next sweep sees it gone.
    throw new Error('the Job is being deleted');
  }
  return { uid, suspended: job.spec?.suspend === true };
}
