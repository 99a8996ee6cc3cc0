import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import type { RunView } from '@wrs/domain';
import { eventually, startFakeKubernetes, type FakeKubernetes } from '@wrs/testing';
import { KubernetesProvider } from './kubernetes.provider';
import { ServerAddresses } from './kubernetes/server-guard';
import { K8S_PLACEMENT, kubernetesRunOf } from './kubernetes/kubernetes-runs.testing';
import { ProviderError, type Observation } from './provider';

// Against a fake Kubernetes API server (HTTPS, test CA, schema-validated bodies): there is no real
// cluster on the development machine. See libs/testing/src/fake-kubernetes.
const NAMESPACE = 'team-runs';
const TOKEN = `test-${randomBytes(16).toString('hex')}`;
// The fake listens on loopback: allowed here as an operator allows its clusters' private range.
const LOOPBACK = new ServerAddresses('127.0.0.0/8');
const PLACEMENT = K8S_PLACEMENT;
const runOf = kubernetesRunOf;

describe('KubernetesProvider against a fake Kubernetes API server', () => {
  let fake: FakeKubernetes;
  let credential: string;
  let stored: string | null;
  let provider: KubernetesProvider;

  beforeAll(async () => {
    fake = await startFakeKubernetes({ token: TOKEN, namespaces: [NAMESPACE], missingImages: ['registry.example/missing:1'] });
    credential = JSON.stringify({ server: fake.server, token: TOKEN, caCertificate: fake.caCertificate, namespace: NAMESPACE });
  });
  beforeEach(() => {
    stored = credential;
    provider = new KubernetesProvider('k8s', () => Promise.resolve(stored), { serverAddresses: LOOPBACK });
  });
  afterAll(async () => {
    // No request ever carried a secret in its URL, and every body was valid for the Kubernetes schemas.
    expect(fake.requests.filter((r) => r.url.includes(TOKEN))).toEqual([]);
    expect(fake.invalidBodies).toEqual([]);
    await fake.stop();
  });

  const observeUntil = (run: RunView, phase: Observation['phase']) =>
    eventually(
      async () => {
        const seen = await provider.observe(run);
        return seen.phase === phase ? seen : undefined;
      },
      10_000,
      phase,
    );

  it('submits the run as one Job; a second submit re-attaches (409 AlreadyExists) instead of creating another', async () => {
    const run = runOf({ timeoutSeconds: 120, command: ['sh'], args: ['-c', 'echo hi'] }, { GREETING: 'hello' });
    await provider.submit(run, PLACEMENT, credential);
    await provider.submit(run, PLACEMENT, credential);
    const jobs = fake.jobs().filter((j) => j.metadata?.labels?.['workload-run-service.io/run'] === run.runId);
    expect(jobs).toHaveLength(1);
    const creates = fake.requests.filter((r) => r.method === 'POST' && r.url === `/apis/batch/v1/namespaces/${NAMESPACE}/jobs`);
    expect(creates.slice(-2).map((r) => r.status)).toEqual([201, 409]);
    const job = jobs[0]!;
    expect(job.metadata).toMatchObject({
      name: `wrs-${run.runId}`,
      namespace: NAMESPACE,
      labels: { 'workload-run-service.io/workspace': 'ws-k8s' },
    });
    expect(job.spec).toMatchObject({ suspend: false, backoffLimit: 0, activeDeadlineSeconds: 120, ttlSecondsAfterFinished: 3600 });
    const pod = job.spec!.template.spec!;
    expect(pod).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false, securityContext: { runAsNonRoot: true } });
    expect(pod.containers).toEqual([
      expect.objectContaining({
        image: 'busybox:1.36',
        command: ['sh'],
        args: ['-c', 'echo hi'],
        env: [{ name: 'GREETING', value: 'hello' }],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
        securityContext: { allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ['ALL'] } },
      }),
    ]);
    await provider.release(run);
  });

  it('makes the Job suspended and resumes it only while the run still wants it: a run canceled meanwhile gets no pod', async () => {
    const unwanted = runOf({ command: ['sh'], args: ['-c', 'echo never'] });
    await provider.submit(unwanted, PLACEMENT, credential, () => Promise.resolve(false));
    const made = fake.jobs().find((j) => j.metadata?.name === `wrs-${unwanted.runId}`);
    expect({ suspend: made?.spec?.suspend, resumed: fake.resumptions.includes(`wrs-${unwanted.runId}`) }).toEqual({
      suspend: true,
      resumed: false,
    });
    expect(await provider.observe(unwanted)).toEqual({ phase: 'pending' });
    await provider.cancel(unwanted);
    expect(await provider.observe(unwanted)).toMatchObject({ phase: 'lost' });

    // A submit again after its maker died before resuming (409): resumed here once the run wants it.
    const wanted = runOf({ command: ['sh'], args: ['-c', 'echo hi'] });
    await provider.submit(wanted, PLACEMENT, credential, () => Promise.resolve(false));
    await provider.submit(wanted, PLACEMENT, credential, () => Promise.resolve(true));
    expect(fake.resumptions.filter((name) => name === `wrs-${wanted.runId}`)).toHaveLength(1);
    // Once it runs, a submit again re-attaches without a patch.
    await provider.submit(wanted, PLACEMENT, credential, () => Promise.resolve(true));
    expect(fake.requests.filter((r) => r.method === 'PATCH' && r.url.includes(`wrs-${wanted.runId}`))).toHaveLength(1);
    await observeUntil(wanted, 'exited');
    await provider.release(wanted);
  });

  it('resumes the Job it made by its uid: a later Job of the run under the same name is not its to start', async () => {
    const run = runOf({ command: ['sh'], args: ['-c', 'echo twice'] });
    // Between this submit's answer and its resume: a cancel deletes its Job, and another worker's submit
    // (the run no longer wants it) makes a new one of the same name and leaves it suspended.
    const meanwhile = async () => {
      await provider.cancel(run);
      await provider.submit(run, PLACEMENT, credential, () => Promise.resolve(false));
      return true;
    };
    const error = await provider.submit(run, PLACEMENT, credential, meanwhile).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ProviderError); // unclear, not a refusal: the run stays here
    const later = fake.jobs().find((j) => j.metadata?.name === `wrs-${run.runId}`);
    expect({ suspend: later?.spec?.suspend, resumed: fake.resumptions.includes(`wrs-${run.runId}`) }).toEqual({
      suspend: true,
      resumed: false,
    });
    await provider.cancel(run);
  });

  it('a cluster that refuses the resume (no patch right) is a refusal, and the unstarted Job is deleted', async () => {
    const strict = await startFakeKubernetes({ token: TOKEN, namespaces: [NAMESPACE], forbidden: ['patch'] });
    try {
      const key = JSON.stringify({ server: strict.server, token: TOKEN, caCertificate: strict.caCertificate, namespace: NAMESPACE });
      const run = runOf({ command: ['sh'], args: ['-c', 'echo hi'] });
      await expect(provider.submit(run, PLACEMENT, key)).rejects.toMatchObject({
        code: 'provider_error',
        message: expect.stringContaining('refused to start the Job') as unknown,
      });
      expect({ jobs: strict.jobs().length, deletions: strict.deletions.map((d) => d.name) }).toEqual({
        jobs: 0,
        deletions: [`wrs-${run.runId}`],
      });
    } finally {
      await strict.stop();
    }
  });

  it('a refused resume of a Job another worker resumed meanwhile deletes nothing and is not a refusal (it may run)', async () => {
    const strict = await startFakeKubernetes({ token: TOKEN, namespaces: [NAMESPACE], forbidden: ['patch'] });
    try {
      const key = JSON.stringify({ server: strict.server, token: TOKEN, caCertificate: strict.caCertificate, namespace: NAMESPACE });
      const run = runOf({ command: ['sh'], args: ['-c', 'echo hi'] });
      const resumedElsewhere = () => {
        strict.resume(NAMESPACE, `wrs-${run.runId}`);
        return Promise.resolve(true);
      };
      const error = await provider.submit(run, PLACEMENT, key, resumedElsewhere).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ProviderError);
      expect({ jobs: strict.jobs().length, deletions: strict.deletions.length }).toEqual({ jobs: 1, deletions: 0 });
    } finally {
      await strict.stop();
    }
  });

  it('a refused resume whose delete is refused too is a refusal all the same: the Job stays suspended, never started', async () => {
    const strict = await startFakeKubernetes({ token: TOKEN, namespaces: [NAMESPACE], forbidden: ['patch', 'delete'] });
    try {
      const key = JSON.stringify({ server: strict.server, token: TOKEN, caCertificate: strict.caCertificate, namespace: NAMESPACE });
      const run = runOf({ command: ['sh'], args: ['-c', 'echo hi'] });
      await expect(provider.submit(run, PLACEMENT, key)).rejects.toBeInstanceOf(ProviderError);
      expect(strict.jobs().map((j) => j.spec?.suspend)).toEqual([true]);
    } finally {
      await strict.stop();
    }
  });

  it('a refused resume tries its delete again when the Job changed in between, and gives up unclear when it keeps changing', async () => {
    const cases = [
      // The Job changes once after the read: the delete meets 409, reads again, deletes: a refusal.
      { statusWritesAfterReads: 1, expected: { refused: true, jobsLeft: 0, deletes: [409, 200] } },
      // It changes after every read: three tries, then unclear, the Job kept (it may be resumed elsewhere).
      { statusWritesAfterReads: Infinity, expected: { refused: false, jobsLeft: 1, deletes: [409, 409, 409] } },
    ];
    for (const { statusWritesAfterReads, expected } of cases) {
      const strict = await startFakeKubernetes({ token: TOKEN, namespaces: [NAMESPACE], forbidden: ['patch'], statusWritesAfterReads });
      try {
        const key = JSON.stringify({ server: strict.server, token: TOKEN, caCertificate: strict.caCertificate, namespace: NAMESPACE });
        const error = await provider.submit(runOf({ command: ['true'] }), PLACEMENT, key).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        expect({
          refused: error instanceof ProviderError,
          jobsLeft: strict.jobs().length,
          deletes: strict.requests.filter((r) => r.method === 'DELETE').map((r) => r.status),
        }).toEqual(expected);
      } finally {
        await strict.stop();
      }
    }
  });

  it('a create the API server throttles (429) is not a refusal: the Job may be made on the next try, here', async () => {
    const busy = await startFakeKubernetes({ token: TOKEN, namespaces: [NAMESPACE], throttleCreates: true });
    try {
      const key = JSON.stringify({ server: busy.server, token: TOKEN, caCertificate: busy.caCertificate, namespace: NAMESPACE });
      const error = await provider.submit(runOf({ command: ['true'] }), PLACEMENT, key).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ProviderError);
    } finally {
      await busy.stop();
    }
  });

  it("puts the run's labels on its Job and pod under the service's prefix, and all of them in an annotation", async () => {
    const labels = { team: 'ml', tier: '', 'example.com/owner': 'a' };
    const run = runOf({ labels });
    await provider.submit(run, PLACEMENT, credential);
    const job = fake.jobs().find((j) => j.metadata?.labels?.['workload-run-service.io/run'] === run.runId)!;
    const expected = {
      'label.workload-run-service.io/team': 'ml',
      'label.workload-run-service.io/tier': '',
      'workload-run-service.io/workspace': 'ws-k8s',
    };
    expect(job.metadata?.labels).toMatchObject(expected);
    expect(job.spec?.template.metadata?.labels).toMatchObject(expected);
    expect(Object.keys(job.metadata?.labels ?? {}).filter((k) => k.includes('example.com'))).toEqual([]);
    expect(JSON.parse(job.metadata?.annotations?.['workload-run-service.io/labels'] ?? 'null')).toEqual(labels);
    await provider.release(run);
  });

  it('gives the workload the resources it asks for, as both request and limit', async () => {
    const run = runOf({ resources: { cpu: '250m', memory: '1Gi' } });
    await provider.submit(run, PLACEMENT, credential);
    const job = fake.jobs().find((j) => j.metadata?.name === `wrs-${run.runId}`)!;
    expect(job.spec!.template.spec!.containers[0]!.resources).toEqual({
      requests: { cpu: '250m', memory: '1Gi' },
      limits: { cpu: '250m', memory: '1Gi' },
    });
    await provider.release(run);
  });

  it('follows a run to exit 0 and reads its log lines, numbered from 0 (a CRLF ending taken whole)', async () => {
    const run = runOf({}, { FAKE_KUBELET_START_MS: '1500', FAKE_KUBELET_RUN_MS: '300', FAKE_KUBELET_LOG: 'hello\r\nworld\nbye' });
    await provider.submit(run, PLACEMENT, credential);
    expect((await provider.observe(run)).phase).toBe('pending'); // The pod is being created (1.5 s here).
    expect(await provider.logs(run, 0)).toEqual([]); // No log before the container starts (the API answers 400).
    await observeUntil(run, 'running');
    expect(await observeUntil(run, 'exited')).toEqual({ phase: 'exited', exitCode: 0 });
    expect((await provider.logs(run, 0)).map((l) => l.line)).toEqual(['hello', 'world', 'bye']);
    expect(await provider.logs(run, 2)).toEqual([{ stream: 'stdout', line: 'bye' }]);
    await provider.release(run);
    expect(await provider.observe(run)).toMatchObject({ phase: 'lost' });
  });

  it('reports exit code 3 from the pod (the Job alone only says it failed)', async () => {
    const run = runOf({}, { FAKE_KUBELET_EXIT_CODE: '3' });
    await provider.submit(run, PLACEMENT, credential);
    expect(await observeUntil(run, 'exited')).toEqual({ phase: 'exited', exitCode: 3 });
    await provider.release(run);
  });

  it('cancel deletes the Job in the foreground (it goes only after its pod), so its absence confirms the stop', async () => {
    const run = runOf({}, { FAKE_KUBELET_RUN_MS: '600000' });
    await provider.submit(run, PLACEMENT, credential);
    await observeUntil(run, 'running');
    await provider.cancel(run);
    expect(fake.deletions).toContainEqual({ name: `wrs-${run.runId}`, propagationPolicy: 'Foreground' });
    expect(fake.jobs().some((j) => j.metadata?.name === `wrs-${run.runId}`)).toBe(false);
    expect(await provider.observe(run)).toMatchObject({ phase: 'lost' });
    await provider.cancel(run); // Cancelling again (404) is not an error.
  });

  it('a run past its timeout is stopped by the cluster (activeDeadlineSeconds) and reported as timed out', async () => {
    const run = runOf({ timeoutSeconds: 1 }, { FAKE_KUBELET_RUN_MS: '600000', FAKE_KUBELET_LOG: 'working' });
    await provider.submit(run, PLACEMENT, credential);
    // The first end it reports is the deadline, not the exit code of the pod the cluster killed.
    const seen = await eventually(
      async () => {
        const now = await provider.observe(run);
        return now.phase === 'pending' || now.phase === 'running' ? undefined : now;
      },
      10_000,
      'an end',
    );
    expect(seen).toMatchObject({ phase: 'failed', code: 'timed_out' });
    await provider.release(run);
  });

  it('an image the cluster cannot pull (ErrImagePull, ImagePullBackOff) is image_not_found', async () => {
    const run = runOf({ image: 'registry.example/missing:1' });
    await provider.submit(run, PLACEMENT, credential);
    expect(await observeUntil(run, 'failed')).toMatchObject({ phase: 'failed', code: 'image_not_found' });
    expect(await provider.logs(run, 0)).toEqual([]);
    await provider.release(run);
  });

  it('a workspace without a kubernetes credential gets a typed failure and nothing is sent', async () => {
    const before = fake.requests.length;
    const run = runOf();
    await expect(provider.submit(run, PLACEMENT, null)).rejects.toMatchObject({ code: 'provider_credential_missing' });
    stored = null;
    await expect(provider.observe(run)).rejects.toBeInstanceOf(ProviderError);
    // A cancel after the credential was removed does not hang the run in `canceling`.
    await expect(provider.cancel(run)).resolves.toBeUndefined();
    expect(fake.requests.length).toBe(before);
  });

  it('a wrong token is a provider error that names the refusal, never the token', async () => {
    const wrong = `wrong-${randomBytes(16).toString('hex')}`;
    const bad = JSON.stringify({ server: fake.server, token: wrong, caCertificate: fake.caCertificate, namespace: NAMESPACE });
    const error = await provider.submit(runOf(), PLACEMENT, bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'provider_error', message: expect.stringContaining('HTTP 401') });
    expect(String((error as Error).message)).not.toContain(wrong);
    expect(fake.requests.at(-1)).toMatchObject({ authorized: false, status: 401 });
  });

  it("trusts only the credential's CA: another CA is a provider error (TLS), a missing namespace too (404)", async () => {
    const otherCa = await startFakeKubernetes({ token: TOKEN, namespaces: [] }).then(async (other) => {
      await other.stop();
      return other.caCertificate;
    });
    const untrusted = JSON.stringify({ server: fake.server, token: TOKEN, caCertificate: otherCa, namespace: NAMESPACE });
    await expect(provider.submit(runOf(), PLACEMENT, untrusted)).rejects.toMatchObject({ code: 'provider_error' });
    const nowhere = JSON.stringify({ server: fake.server, token: TOKEN, caCertificate: fake.caCertificate, namespace: 'absent' });
    await expect(provider.submit(runOf(), PLACEMENT, nowhere)).rejects.toMatchObject({
      code: 'provider_error',
      message: expect.stringContaining('HTTP 404'),
    });
  });

  it('a create that times out is not a refusal (the Job may exist): the run is not moved elsewhere', async () => {
    // Accepts connections and never answers, like an API server that hangs mid-request.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const hanging = JSON.stringify({
        server: `https://127.0.0.1:${port}`,
        token: TOKEN,
        caCertificate: fake.caCertificate,
        namespace: NAMESPACE,
      });
      const impatient = new KubernetesProvider('k8s', () => Promise.resolve(hanging), { callTimeoutMs: 300, serverAddresses: LOOPBACK });
      const error = await impatient.submit(runOf(), PLACEMENT, hanging).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ProviderError);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a credential that is not the documented JSON is a provider error naming the field, not its value', async () => {
    const secret = JSON.stringify({ server: 'http://plain.example', token: 'abc-secret-value', namespace: NAMESPACE });
    const error = await provider.submit(runOf(), PLACEMENT, secret).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'provider_error', message: expect.stringContaining('"server"') });
    expect((error as Error).message).not.toContain('abc-secret-value');
  });
});
