import { parseKubernetesCredential } from '@wrs/credentials';
import { LOG_LIMITS, type Placement, type RunView } from '@wrs/domain';
import { withoutLineEnding } from './log-lines';
import { ALWAYS_WANTED, ProviderError, type HeldWorkload, type LogLine, type Observation, type RunProvider } from './provider';
import { kubernetesApis, statusOf, within, type KubernetesApis } from './kubernetes/kubernetes-api';
import { ServerAddresses } from './kubernetes/server-guard';
import { makeSuspended, resumeIfSuspended, type BoundedCall } from './kubernetes/job-start';
import { jobName, LABEL_RUN, WORKLOAD_CONTAINER } from './kubernetes/kubernetes-job';
import { heldJobs, heldSelector, parseHandle, type ClusterPlace } from './kubernetes/kubernetes-held';
import { observationOf } from './kubernetes/kubernetes-observation';

/** Opens the workspace's stored credential for a provider and region (null: the workspace has none). */
export type CredentialLookup = (workspaceId: string, provider: string, region: string) => Promise<string | null>;

export interface KubernetesProviderOptions {
  /** How long an opened credential is reused before it is read again (a rotated key takes effect after this). */
  readonly credentialTtlMs: number;
  /** The longest the provider waits for one API call. */
  readonly callTimeoutMs: number;
  /** This installation (NAMESPACE), labelled on every Job: listHeld finds only its own. */
  readonly owner: string;
  /**
   * The clusters listHeld looks at besides those this process has used: every workspace credential
   * for this provider (a restarted worker has used none yet).
   */
  readonly places: () => Promise<readonly ClusterPlace[]>;
  /** Where a credential's API server may be (KUBERNETES_ALLOWED_PRIVATE_RANGES): public addresses only by default. */
  readonly serverAddresses: ServerAddresses;
}

const DEFAULTS: KubernetesProviderOptions = {
  credentialTtlMs: 30_000,
  callTimeoutMs: 10_000,
  owner: 'wrs',
  places: () => Promise.resolve([]),
  serverAddresses: ServerAddresses.PUBLIC_ONLY,
};
/** Bytes of a pod's log read per poll: as many as the run can keep as events, and no more. */
const LOG_BYTES = LOG_LIMITS.maxLinesPerRun * (LOG_LIMITS.maxLineLength + 1);

/**
 * Runs a workload as a `batch/v1` Job on the cluster named by the WORKSPACE's stored credential (each
 * workspace brings its own cluster, identity and namespace). Idempotent by run id: the Job is named
 * after the run, so a second submit meets 409 AlreadyExists and re-attaches.
 */
export class KubernetesProvider implements RunProvider {
  /** The cluster is the workspace's, named by its stored credential. */
  readonly takesCredential = true;
  private readonly options: KubernetesProviderOptions;
  private readonly opened = new Map<string, { apis: KubernetesApis; until: number }>();
  /** Every cluster place this process opened, by cache key: what listHeld looks at without `places`. */
  private readonly used = new Map<string, ClusterPlace>();

  constructor(
    readonly name: string,
    private readonly lookup: CredentialLookup,
    options: Partial<KubernetesProviderOptions> = {},
    private readonly clock: () => number = Date.now,
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  async submit(run: RunView, placement: Placement, credential: string | null, stillWanted = ALWAYS_WANTED): Promise<void> {
    if (credential === null) {
      throw new ProviderError(
        'provider_credential_missing',
        `the workspace has no credential for provider ${placement.provider} (region ${placement.region}): store one with POST /provider-credentials`,
      );
    }
    const apis = this.remember(
      run.workspaceId,
      placement,
      await kubernetesApis(usableCredential(credential), this.options.serverAddresses),
    );
    const call: BoundedCall = (what, request) => this.call(what, request);
    const job = await makeSuspended(apis, run, this.options.owner, call);
    // Left suspended when the run no longer wants it: the caller removes it.
    if (await stillWanted()) {
      await resumeIfSuspended(apis, run, job, call);
    }
  }

  async observe(run: RunView): Promise<Observation> {
    const apis = await this.apisFor(run);
    let job;
    try {
      job = await this.call('read the Job', apis.batch.readNamespacedJob({ name: jobName(run), namespace: apis.namespace }));
    } catch (error) {
      if (statusOf(error) === 404) {
        return { phase: 'lost', reason: 'the Job is gone from the cluster' };
      }
      throw error;
    }
    return observationOf(job, await this.pods(apis, run));
  }

  async logs(run: RunView, fromIndex: number): Promise<LogLine[]> {
    if (fromIndex >= LOG_LIMITS.maxLinesPerRun) {
      return []; // The run keeps no more lines: no need to read megabytes of log on every poll.
    }
    const apis = await this.apisFor(run);
    const pod = (await this.pods(apis, run))[0]?.metadata?.name;
    if (!pod) {
      return [];
    }
    const text = await this.call(
      'read the pod log',
      apis.core.readNamespacedPodLog({ name: pod, namespace: apis.namespace, container: WORKLOAD_CONTAINER, limitBytes: LOG_BYTES }),
    ).catch((error: unknown) => {
      // A pod that has not started has no log yet (400); any other refusal is the provider's.
      if (statusOf(error) === 400 || statusOf(error) === 404) {
        return '';
      }
      throw error;
    });
    // The cluster merges stdout and stderr into one log.
    return splitLines(text)
      .slice(fromIndex)
      .map((line) => ({ stream: 'stdout' as const, line }));
  }

  async cancel(run: RunView): Promise<void> {
    // Foreground: the Job stays (being deleted) until its pods are gone, so an observe that finds no
    // Job confirms the workload stopped, not only that its Job went.
    await this.deleteJob(run, 'Foreground');
  }

  async release(run: RunView): Promise<void> {
    // The Job's ttlSecondsAfterFinished removes it too if this never happens (the worker died first).
    await this.deleteJob(run, 'Background');
  }

  async listHeld(): Promise<HeldWorkload[]> {
    const places = new Map(this.used);
    for (const place of await this.options.places()) {
      places.set(cacheKey(place.workspaceId, { provider: this.name, region: place.region }), place);
    }
    const held = new Map<string, HeldWorkload>();
    const failures: unknown[] = [];
    for (const place of places.values()) {
      try {
        const apis = await this.apisAt(place.workspaceId, { provider: this.name, region: place.region });
        const list = await this.call(
          'list the Jobs',
          apis.batch.listNamespacedJob({ namespace: apis.namespace, labelSelector: heldSelector(this.options.owner) }),
        );
        // Two workspaces may name the same cluster and namespace: one entry per run (its one Job).
        heldJobs(list.items, place, this.options.owner).forEach((w) => held.set(w.runId, w));
      } catch (error) {
        failures.push(error); // One unreachable cluster must not hide the others; the next pass tries it again.
      }
    }
    if (held.size === 0 && failures.length > 0) {
      throw failures[0];
    }
    return [...held.values()];
  }

  async removeHeld(workload: HeldWorkload): Promise<void> {
    const { place, name } = parseHandle(workload.handle);
    const apis = await this.apisAt(place.workspaceId, { provider: this.name, region: place.region });
    try {
      await this.call(
        'delete the Job',
        apis.batch.deleteNamespacedJob({ name, namespace: apis.namespace, propagationPolicy: 'Background' }),
      );
    } catch (error) {
      if (statusOf(error) !== 404) {
        throw error;
      }
    }
  }

  private async deleteJob(run: RunView, propagationPolicy: 'Foreground' | 'Background'): Promise<void> {
    const apis = await this.apisFor(run).catch((error: unknown) => {
      if (error instanceof ProviderError && error.code === 'provider_credential_missing') {
        // The workspace removed its credential: nothing can reach its cluster any more. The Job still
        // ends at its deadline (activeDeadlineSeconds) and goes after ttlSecondsAfterFinished; a
        // cancel must not wait forever for a key that will not come back.
        return undefined;
      }
      throw error;
    });
    if (!apis) {
      return;
    }
    try {
      await this.call(
        'delete the Job',
        apis.batch.deleteNamespacedJob({ name: jobName(run), namespace: apis.namespace, propagationPolicy }),
      );
    } catch (error) {
      if (statusOf(error) !== 404) {
        throw error;
      }
    }
  }

  private async pods(apis: KubernetesApis, run: RunView) {
    const list = await this.call(
      'list the pods',
      apis.core.listNamespacedPod({ namespace: apis.namespace, labelSelector: `${LABEL_RUN}=${run.runId}` }),
    );
    return list.items;
  }

  private async apisFor(run: RunView): Promise<KubernetesApis> {
    const placement = run.placement;
    if (!placement) {
      throw new ProviderError('provider_error', 'the run has not been placed');
    }
    return this.apisAt(run.workspaceId, placement);
  }

  private async apisAt(workspaceId: string, placement: Pick<Placement, 'provider' | 'region'>): Promise<KubernetesApis> {
    const cached = this.opened.get(cacheKey(workspaceId, placement));
    if (cached && cached.until > this.clock()) {
      return cached.apis;
    }
    const credential = await this.lookup(workspaceId, placement.provider, placement.region);
    if (credential === null) {
      throw new ProviderError('provider_credential_missing', `the workspace no longer has a credential for provider ${placement.provider}`);
    }
    return this.remember(workspaceId, placement, await kubernetesApis(usableCredential(credential), this.options.serverAddresses));
  }

  private remember(workspaceId: string, placement: Pick<Placement, 'provider' | 'region'>, apis: KubernetesApis): KubernetesApis {
    const key = cacheKey(workspaceId, placement);
    this.opened.set(key, { apis, until: this.clock() + this.options.credentialTtlMs });
    this.used.set(key, { workspaceId, region: placement.region });
    return apis;
  }

  private call<T>(what: string, request: Promise<T>): Promise<T> {
    return within(this.options.callTimeoutMs, what, request);
  }
}

function usableCredential(secret: string) {
  const parsed = parseKubernetesCredential(secret);
  if (!parsed.ok) {
    throw new ProviderError('provider_error', `the workspace's kubernetes credential is not usable: ${parsed.problem}`);
  }
  return parsed.credential;
}

function cacheKey(workspaceId: string, placement: Pick<Placement, 'provider' | 'region'>): string {
  return JSON.stringify([workspaceId, placement.provider, placement.region]);
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') {
    lines.pop(); // The log ends with a newline: no empty last line.
  }
  return lines.map(withoutLineEnding);
}
