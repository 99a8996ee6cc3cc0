import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Job, type IJob } from 'kubernetes-models/batch/v1/Job';
import { JobList } from 'kubernetes-models/batch/v1/JobList';
// kubernetes-models keeps the apimachinery types (DeleteOptions) in this dependency of its own.
import { DeleteOptions } from '@kubernetes-models/apimachinery/apis/meta/v1/DeleteOptions';
import { Pod } from 'kubernetes-models/v1/Pod';
import { PodList } from 'kubernetes-models/v1/PodList';
import { jobStatusAt, momentOf, podAt, scriptOf } from './fake-kubelet';
import { makeTestTls } from './test-ca';

export interface FakeKubernetesOptions {
  /** The only bearer token the server accepts. */
  readonly token: string;
  /** Namespaces that exist. */
  readonly namespaces: readonly string[];
  /** Images the cluster cannot pull (their pods wait in ErrImagePull / ImagePullBackOff). */
  readonly missingImages?: readonly string[];
  /** Verbs on a Job the token lacks: each such request is 403 Forbidden, as RBAC answers. */
  readonly forbidden?: readonly ('patch' | 'delete')[];
  /** Every create of a Job is 429 Too Many Requests (the API server's priority and fairness throttling). */
  readonly throttleCreates?: boolean;
  /**
   * How many reads of a Job are followed at once by a write of its status (another controller's): the
   * resourceVersion the read answered is old by the client's next request. Infinity: every read.
   */
  readonly statusWritesAfterReads?: number;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as received: tests assert no secret ever travels in it. */
  readonly url: string;
  readonly authorized: boolean;
  readonly status: number;
}

export interface FakeKubernetes {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** The CA (PEM) that signed the server's certificate. */
  readonly caCertificate: string;
  /** Every request, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Bodies refused as invalid against the Kubernetes schemas: a correct client makes none. */
  readonly invalidBodies: readonly string[];
  /** Jobs as stored now, by namespace/name. */
  jobs(): readonly IJob[];
  /** Every Job deletion with its propagation policy. */
  readonly deletions: readonly { name: string; propagationPolicy: string | null }[];
  /** Every Job this server created (a 409 for an existing name is not one), with its labels and when. */
  readonly creations: readonly { name: string; labels: Record<string, string>; at: Date }[];
  /** Every Job a patch let start (`spec.suspend` from true to false), by name. */
  readonly resumptions: readonly string[];
  /** Resumes a suspended Job as another client would (whatever `forbidden` says), by namespace and name. */
  resume(namespace: string, name: string): void;
  stop(): Promise<void>;
}

interface StoredJob {
  job: IJob;
  readonly createdAt: Date;
  /** When the Job was created unsuspended or resumed: its pod's life counts from here (null: suspended, no pod). */
  startedAt: Date | null;
  /** Made suspended: once resumed its status keeps a `Suspended` condition of status False, as the Job controller's. */
  readonly madeSuspended: boolean;
  readonly podName: string;
}

/** The merge patch types the API server takes for a Job (a JSON Patch is a list of operations: not taken here). */
const MERGE_PATCHES = new Set(['application/merge-patch+json', 'application/strategic-merge-patch+json']);

/**
 * A small Kubernetes API server for tests, over real HTTPS with a CA made for the test: the batch/v1
 * Jobs (create, read, delete, list by label, a merge patch of `spec.suspend`) and core/v1 Pods (list, log) endpoints the kubernetes provider uses, and /version. Every body
 * it receives is validated against the Kubernetes schemas (kubernetes-models) and every object it
 * returns too; refusals are API-shaped `Status` objects (401, 404 NotFound, 409 AlreadyExists, 422
 * Invalid). Pods follow a scripted lifecycle (see fake-kubelet.ts). It is not Kubernetes: no
 * scheduler, no admission, no field defaulting beyond what the provider reads.
 */
export async function startFakeKubernetes(options: FakeKubernetesOptions): Promise<FakeKubernetes> {
  const tls = makeTestTls();
  const store = new Map<string, StoredJob>();
  const requests: RecordedRequest[] = [];
  const invalidBodies: string[] = [];
  const deletions: { name: string; propagationPolicy: string | null }[] = [];
  const creations: { name: string; labels: Record<string, string>; at: Date }[] = [];
  const resumptions: string[] = [];
  let statusWrites = options.statusWritesAfterReads ?? 0;
  const missing = new Set(options.missingImages ?? []);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      return status(res, 401, 'Unauthorized', 'Unauthorized');
    }
    const url = new URL(req.url ?? '/', 'https://fake');
    const body = await readBody(req);
    if (req.method === 'GET' && url.pathname === '/version') {
      return json(res, 200, { major: '1', minor: '33', gitVersion: 'v1.33.0-fake', platform: 'linux/amd64' });
    }
    const jobs = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?$/.exec(url.pathname);
    const pods = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+)(\/log)?)?$/.exec(url.pathname);
    const namespace = jobs?.[1] ?? pods?.[1];
    if (namespace !== undefined && !options.namespaces.includes(namespace)) {
      return status(res, 404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
    }
    if (jobs && !jobs[2] && req.method === 'POST' && options.throttleCreates) {
      return status(res, 429, 'TooManyRequests', 'Too many requests, please try again later.');
    }
    if (jobs && req.method === 'POST' && !jobs[2]) {
      return createJob(res, namespace!, body);
    }
    if (jobs && req.method === 'GET' && !jobs[2]) {
      const selector = parseSelector(url.searchParams.get('labelSelector'));
      const items = [...store.values()]
        .filter((s) => s.job.metadata!.namespace === namespace && matches(s.job.metadata?.labels, selector))
        .map(jobNow);
      return json(res, 200, valid(new JobList({ metadata: { resourceVersion: '1' }, items })));
    }
    const verb = req.method === 'PATCH' ? 'patch' : req.method === 'DELETE' ? 'delete' : undefined;
    if (jobs && jobs[2] && verb && options.forbidden?.includes(verb)) {
      return status(
        res,
        403,
        'Forbidden',
        `jobs.batch "${jobs[2]}" is forbidden: User "system:serviceaccount:${namespace}:wrs" cannot ${verb} resource "jobs" in API group "batch" in the namespace "${namespace}"`,
        { name: jobs[2], group: 'batch', kind: 'jobs' },
      );
    }
    if (jobs && jobs[2] && req.method === 'PATCH') {
      const stored = store.get(`${namespace}/${jobs[2]}`);
      if (!stored) {
        return status(res, 404, 'NotFound', `jobs.batch "${jobs[2]}" not found`, { name: jobs[2], group: 'batch', kind: 'jobs' });
      }
      return patchJob(res, stored, req.headers['content-type'] ?? '', body);
    }
    if (jobs && jobs[2] && (req.method === 'GET' || req.method === 'DELETE')) {
      const stored = store.get(`${namespace}/${jobs[2]}`);
      if (!stored) {
        return status(res, 404, 'NotFound', `jobs.batch "${jobs[2]}" not found`, { name: jobs[2], group: 'batch', kind: 'jobs' });
      }
      if (req.method === 'GET') {
        const answered = json(res, 200, valid(new Job(jobNow(stored))));
        if (statusWrites > 0) {
          statusWrites -= 1;
          stored.job = {
            ...stored.job,
            metadata: { ...stored.job.metadata, resourceVersion: String(Number(stored.job.metadata!.resourceVersion) + 1) },
          };
        }
        return answered;
      }
      return deleteJob(res, stored, url.searchParams.get('propagationPolicy'), body);
    }
    if (pods && req.method === 'GET' && !pods[2]) {
      const selector = parseSelector(url.searchParams.get('labelSelector'));
      const items = [...store.values()]
        .filter((s) => s.job.metadata!.namespace === namespace)
        .map(podNow)
        .filter((p): p is Pod => p !== undefined && matches(p.metadata?.labels, selector));
      return json(res, 200, valid(new PodList({ metadata: { resourceVersion: '1' }, items })));
    }
    if (pods && req.method === 'GET' && pods[2] && pods[3]) {
      return podLog(res, namespace!, pods[2], url.searchParams);
    }
    return status(res, 404, 'NotFound', 'the server could not find the requested resource');
  };

  const createJob = (res: ServerResponse, namespace: string, body: string): number => {
    let job: Job;
    try {
      job = new Job(JSON.parse(body) as IJob);
      job.validate();
    } catch (error) {
      invalidBodies.push(body);
      return status(res, 422, 'Invalid', `Job is invalid: ${error instanceof Error ? error.message : String(error)}`);
    }
    const name = job.metadata?.name;
    if (job.apiVersion !== 'batch/v1' || job.kind !== 'Job' || !name || (job.metadata?.namespace ?? namespace) !== namespace) {
      invalidBodies.push(body);
      return status(res, 422, 'Invalid', 'Job is invalid: apiVersion, kind, metadata.name and namespace must match the request');
    }
    if (store.has(`${namespace}/${name}`)) {
      return status(res, 409, 'AlreadyExists', `jobs.batch "${name}" already exists`, { name, group: 'batch', kind: 'jobs' });
    }
    const createdAt = new Date();
    const storedJob: IJob = {
      ...job.toJSON(),
      metadata: { ...job.metadata, namespace, uid: randomUUID(), resourceVersion: '1', creationTimestamp: createdAt.toISOString() },
    };
    const stored = {
      job: storedJob,
      createdAt,
      startedAt: job.spec?.suspend ? null : createdAt,
      madeSuspended: job.spec?.suspend === true,
      podName: `${name}-${randomUUID().slice(0, 5)}`,
    };
    store.set(`${namespace}/${name}`, stored);
    creations.push({ name, labels: { ...job.metadata?.labels }, at: createdAt });
    const answer = valid(new Job(jobNow(stored)));
    if (stored.madeSuspended) {
      // The Job controller writes the Suspended condition at once: the create's resourceVersion is old by then.
      stored.job = { ...stored.job, metadata: { ...stored.job.metadata, resourceVersion: '2' } };
    }
    return json(res, 201, answer);
  };

  /**
   * Only `spec.suspend` may change, from true to false, as the provider uses it; resuming starts the
   * pod's life from now and changes the Job's resourceVersion. A `metadata.uid` in the patch other than
   * the Job's is refused as the API server refuses it (uid is immutable: 422 Invalid, cause `metadata.uid`).
   */
  const patchJob = (res: ServerResponse, stored: StoredJob, contentType: string, body: string): number => {
    if (!MERGE_PATCHES.has(contentType.split(';')[0]!.trim())) {
      return status(res, 415, 'UnsupportedMediaType', `the body of the request was in an unknown format (${contentType})`);
    }
    let patch: unknown;
    try {
      patch = JSON.parse(body);
    } catch {
      invalidBodies.push(body);
      return status(res, 400, 'BadRequest', 'the patch is not JSON');
    }
    const { spec, metadata, ...rest } = (patch ?? {}) as { spec?: Record<string, unknown>; metadata?: Record<string, unknown> };
    const onlyUid = metadata === undefined || Object.keys(metadata).join() === 'uid';
    if (Object.keys(rest).length > 0 || !onlyUid || !spec || Object.keys(spec).join() !== 'suspend' || spec['suspend'] !== false) {
      invalidBodies.push(body);
      return status(res, 422, 'Invalid', 'this fake takes only a patch of spec.suspend to false (and metadata.uid as a precondition)');
    }
    const uid = stored.job.metadata!.uid!;
    const name = stored.job.metadata!.name!;
    if (metadata && metadata['uid'] !== uid) {
      return status(
        res,
        422,
        'Invalid',
        `Job.batch "${name}" is invalid: metadata.uid: Invalid value: "${String(metadata['uid'])}": field is immutable`,
        {
          name,
          group: 'batch',
          kind: 'Job',
        },
      );
    }
    resumeStored(stored);
    return json(res, 200, valid(new Job(jobNow(stored))));
  };

  const resumeStored = (stored: StoredJob): void => {
    if (stored.startedAt === null) {
      stored.startedAt = new Date();
      resumptions.push(stored.job.metadata!.name!);
    }
    const resourceVersion = String(Number(stored.job.metadata!.resourceVersion) + 1);
    stored.job = { ...stored.job, metadata: { ...stored.job.metadata, resourceVersion }, spec: { ...stored.job.spec!, suspend: false } };
  };

  const deleteJob = (res: ServerResponse, stored: StoredJob, policy: string | null, body: string): number => {
    let preconditions: { uid?: string; resourceVersion?: string } = {};
    if (body) {
      try {
        const options = new DeleteOptions(JSON.parse(body) as object);
        options.validate();
        preconditions = options.preconditions ?? {};
      } catch (error) {
        invalidBodies.push(body);
        return status(res, 422, 'Invalid', `DeleteOptions are invalid: ${String(error)}`);
      }
    }
    const { uid, resourceVersion } = stored.job.metadata!;
    if (preconditions.uid !== undefined && preconditions.uid !== uid) {
      return status(res, 409, 'Conflict', `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${uid}`);
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== resourceVersion) {
      return status(
        res,
        409,
        'Conflict',
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${resourceVersion}`,
      );
    }
    if (policy !== null && !['Foreground', 'Background', 'Orphan'].includes(policy)) {
      return status(res, 400, 'BadRequest', `unknown propagationPolicy "${policy}"`);
    }
    store.delete(`${stored.job.metadata!.namespace}/${stored.job.metadata!.name}`);
    deletions.push({ name: stored.job.metadata!.name!, propagationPolicy: policy });
    return json(res, 200, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: stored.job.metadata!.name, group: 'batch', kind: 'jobs', uid: stored.job.metadata!.uid },
    });
  };

  const podLog = (res: ServerResponse, namespace: string, podName: string, query: URLSearchParams): number => {
    const stored = [...store.values()].find((s) => s.podName === podName && s.job.metadata!.namespace === namespace);
    const pod = stored && podNow(stored);
    if (!stored || !pod || !stored.startedAt) {
      return status(res, 404, 'NotFound', `pods "${podName}" not found`, { name: podName, kind: 'pods' });
    }
    const container = stored.job.spec!.template.spec!.containers[0]!.name;
    if (query.get('container') !== null && query.get('container') !== container) {
      return status(res, 400, 'BadRequest', `container ${query.get('container') ?? ''} is not valid for pod ${podName}`);
    }
    const moment = momentNow(stored, stored.startedAt);
    if (moment.phase === 'creating' || moment.phase === 'pulling-failed') {
      return status(
        res,
        400,
        'BadRequest',
        `container "${container}" in pod "${podName}" is waiting to start: ${moment.phase === 'creating' ? 'ContainerCreating' : 'ErrImagePull'}`,
      );
    }
    const lines = scriptOf(stored.job, (i) => !missing.has(i)).log.slice(0, moment.logLines);
    let text = lines.map((l) => `${l}\n`).join('');
    const limit = query.get('limitBytes');
    if (limit !== null) {
      text = Buffer.from(text).subarray(0, Number(limit)).toString('utf8');
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(text);
    return 200;
  };

  const momentNow = (stored: StoredJob, startedAt: Date) =>
    momentOf(
      scriptOf(stored.job, (i) => !missing.has(i)),
      Date.now() - startedAt.getTime(),
      stored.job.spec?.activeDeadlineSeconds,
    );
  const jobNow = (stored: StoredJob): IJob => {
    if (!stored.startedAt) {
      return { ...stored.job, status: suspendedStatus(stored.createdAt) };
    }
    const status = jobStatusAt(momentNow(stored, stored.startedAt), stored.startedAt);
    const resumed = stored.madeSuspended ? [resumedCondition(stored.startedAt)] : [];
    return { ...stored.job, status: { ...status, conditions: [...resumed, ...(status.conditions ?? [])] } };
  };
  const podNow = (stored: StoredJob): Pod | undefined => {
    const pod = stored.startedAt && podAt(stored.job, stored.podName, momentNow(stored, stored.startedAt), stored.startedAt);
    return pod ? valid(new Pod(pod)) : undefined;
  };

  const server: Server = createServer({ cert: tls.serverCertificate, key: tls.serverKey }, (req, res) => {
    handle(req, res)
      .catch((error: unknown) => status(res, 500, 'InternalError', String(error)))
      .then((code) => requests.push({ method: req.method ?? '', url: req.url ?? '', authorized: code !== 401, status: code }))
      .catch(() => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server: `https://127.0.0.1:${port}`,
    caCertificate: tls.caCertificate,
    requests,
    invalidBodies,
    deletions,
    creations,
    resumptions,
    resume: (namespace, name) => {
      const stored = store.get(`${namespace}/${name}`);
      if (!stored) {
        throw new Error(`no Job ${namespace}/${name}`);
      }
      resumeStored(stored);
    },
    jobs: () => [...store.values()].map((s) => s.job),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A suspended Job's status, as the Job controller writes it: no pod, one Suspended condition. */
function suspendedStatus(createdAt: Date): NonNullable<IJob['status']> {
  const at = createdAt.toISOString();
  return {
    active: 0,
    conditions: [
      { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended', lastProbeTime: at, lastTransitionTime: at },
    ],
  };
}

function resumedCondition(resumedAt: Date) {
  const at = resumedAt.toISOString();
  return { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed', lastProbeTime: at, lastTransitionTime: at };
}

/** What the fake returns must itself be a valid object of its kind. */
function valid<T extends { validate(): void }>(object: T): T {
  object.validate();
  return object;
}

/** Equality terms (`k=v`) and existence terms (`k`, value null), the two forms the provider sends. */
function parseSelector(selector: string | null): Record<string, string | null> {
  if (!selector) {
    return {};
  }
  return Object.fromEntries(
    selector.split(',').map((term) => [term.split('=')[0]!, term.includes('=') ? term.slice(term.indexOf('=') + 1) : null]),
  );
}

function matches(labels: Record<string, string> | undefined, selector: Record<string, string | null>): boolean {
  return Object.entries(selector).every(([k, v]) => (v === null ? labels?.[k] !== undefined : labels?.[k] === v));
}

function json(res: ServerResponse, code: number, body: unknown): number {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return code;
}

function status(res: ServerResponse, code: number, reason: string, message: string, details?: Record<string, string>): number {
  return json(res, code, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
