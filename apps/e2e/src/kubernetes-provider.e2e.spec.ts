import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractValidator, eventually, readSse, startFakeKubernetes, type FakeKubernetes, type SseEvent } from '@wrs/testing';
import { startStack, terminalRun, type StackFixture } from './stack-fixture';

// The whole stack with a `kubernetes` provider pointed (through a workspace's stored credential) at
// a fake Kubernetes API server over HTTPS: there is no real cluster here. Also a `container` provider
// whose engine socket does not exist, so its health probe fails and `auto` must skip it.
const NAMESPACE = 'wrs-runs';
const K8S_TOKEN = `k8s-${randomBytes(24).toString('base64url')}`;
const PROVIDERS = JSON.stringify([
  { provider: 'engine-down', kind: 'container', regions: ['local'], priority: 0 },
  { provider: 'k8s', kind: 'kubernetes', regions: ['eu-1'], priority: 1, cost: 1 },
  { provider: 'simulator', regions: ['local-1'], priority: 1, cost: 2 },
]);

interface Placement {
  provider: string;
  region: string;
  candidates: { provider: string; region: string; cost?: number; load?: number }[];
  failovers?: { provider: string; region: string; code: string; message: string }[];
}

describe('the kubernetes provider through the whole stack (fake Kubernetes API server)', () => {
  let fake: FakeKubernetes;
  let f: StackFixture;

  beforeAll(async () => {
    fake = await startFakeKubernetes({ token: K8S_TOKEN, namespaces: [NAMESPACE], missingImages: ['registry.example/nothing:1'] });
    f = await startStack(['ws-cluster', 'ws-bare'], {
      PROVIDERS_JSON: PROVIDERS,
      // The fake cluster is on loopback: allowed as an operator allows its clusters' private range.
      KUBERNETES_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8',
      CONTAINER_ENGINE_SOCKET: join(tmpdir(), `wrs-no-engine-${randomUUID()}.sock`),
    });
  });

  afterAll(async () => {
    const logs = f?.logs ?? [];
    await f?.stop();
    await fake?.stop();
    // The cluster token was stored as a provider credential: it never shows in a log line or a URL.
    expect(logs.filter((line) => line.includes(K8S_TOKEN))).toEqual([]);
    expect(fake.requests.filter((r) => r.url.includes(K8S_TOKEN))).toEqual([]);
    expect(fake.invalidBodies).toEqual([]);
  });

  const createRun = async (token: string, body: Record<string, unknown>): Promise<string> => {
    const res = await f.client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': randomUUID() }, body });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  const follow = async (id: string, token: string): Promise<SseEvent[]> => {
    const { events } = await readSse(`${f.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 30_000 });
    events.forEach((e) => contractValidator().assertSchema('RunEvent', JSON.parse(e.data)));
    return events;
  };
  const dataOf = (e: SseEvent | undefined) => (JSON.parse(e!.data) as { data: Record<string, unknown> }).data;

  it("runs a workload as a Job on the workspace's cluster: succeeded, with its log lines as events, the Job removed", async () => {
    const token = f.token('ws-cluster');
    const secret = JSON.stringify({ server: fake.server, token: K8S_TOKEN, caCertificate: fake.caCertificate, namespace: NAMESPACE });
    const stored = await f.client.call('POST /provider-credentials', '/provider-credentials', { token, body: { provider: 'k8s', secret } });
    expect(stored.status).toBe(201);
    expect(stored.text).not.toContain(K8S_TOKEN);

    const id = await createRun(token, {
      workload: {
        image: 'busybox:1.36',
        command: ['sh', '-c', 'echo hello; echo world'],
        env: { FAKE_KUBELET_LOG: 'hello\nworld', FAKE_KUBELET_RUN_MS: '300' },
      },
      provider: 'k8s',
      region: 'auto',
    });
    const events = await follow(id, token);
    expect(events.map((e) => e.event)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.log', 'run.log', 'run.succeeded']);
    expect(events.filter((e) => e.event === 'run.log').map((e) => dataOf(e)['line'])).toEqual(['hello', 'world']);
    expect(await terminalRun(f, id, token)).toMatchObject({
      state: 'succeeded',
      exitCode: 0,
      placement: { provider: 'k8s', region: 'eu-1', reason: expect.stringMatching(/^auto: 1 candidate/) },
    });
    // One Job for the run, created in the credential's namespace, then deleted once the run ended.
    expect(
      fake.requests.filter((r) => r.method === 'POST' && r.status === 201 && r.url === `/apis/batch/v1/namespaces/${NAMESPACE}/jobs`),
    ).toHaveLength(1);
    await eventually(
      () => Promise.resolve(fake.deletions.some((d) => d.name === `wrs-${id}`) ? true : undefined),
      10_000,
      'the Job to be deleted',
    );
  }, 60_000);

  it('an image the cluster cannot pull fails the run image_not_found; a run past its timeout fails timed_out', async () => {
    const token = f.token('ws-cluster');
    const missing = await createRun(token, { workload: { image: 'registry.example/nothing:1' }, provider: 'k8s', region: 'eu-1' });
    const slow = await createRun(token, {
      workload: { image: 'busybox:1.36', timeoutSeconds: 1, env: { FAKE_KUBELET_RUN_MS: '600000' } },
      provider: 'k8s',
      region: 'eu-1',
    });
    expect(dataOf((await follow(missing, token)).at(-1))).toMatchObject({ failure: { code: 'image_not_found' }, exitCode: null });
    expect(dataOf((await follow(slow, token)).at(-1))).toMatchObject({ failure: { code: 'timed_out' } });
    for (const id of [missing, slow]) {
      await eventually(
        () => Promise.resolve(fake.deletions.some((d) => d.name === `wrs-${id}`) ? true : undefined),
        10_000,
        'the Job to be deleted',
      );
    }
  }, 60_000);

  it('auto skips the unhealthy provider and the one the workspace has no credential for, and the placement says so', async () => {
    const token = f.token('ws-bare');
    const id = await createRun(token, { workload: { image: 'busybox:1.36' }, provider: 'auto', region: 'auto' });
    const events = await follow(id, token);
    expect(events.at(-1)?.event).toBe('run.succeeded');
    // Placed on k8s first (the placement is recorded before the submit), which refused: no credential.
    expect(events.map((e) => e.event).filter((type) => type.startsWith('run.dispatch'))).toEqual([
      'run.dispatched',
      'run.dispatch_refused',
      'run.dispatched',
    ]);
    const refusal = {
      provider: 'k8s',
      region: 'eu-1',
      code: 'provider_credential_missing',
      message: expect.stringContaining('POST /provider-credentials'),
    };
    expect(dataOf(events.find((e) => e.event === 'run.dispatch_refused'))).toMatchObject({ refusal });
    const placement = dataOf(events.filter((e) => e.event === 'run.dispatched').at(-1))['placement'] as Placement;
    expect(placement).toMatchObject({ provider: 'simulator', region: 'local-1' });
    // The policy's order: priority, then cost (k8s 1 before simulator 2).
    expect(placement.candidates.map((c) => [c.provider, c.cost])).toEqual([
      ['engine-down', undefined],
      ['k8s', 1],
      ['simulator', 2],
    ]);
    // The earlier refusal first, then what this dispatch skipped.
    expect(placement.failovers).toEqual([
      refusal,
      { provider: 'engine-down', region: 'local', code: 'unhealthy', message: expect.stringContaining('health probe failed') },
    ]);
  }, 60_000);

  it('a kubernetes credential that is not the documented JSON is refused when stored (400), without echoing it', async () => {
    const token = f.token('ws-bare');
    const secret = JSON.stringify({ server: 'http://plain-http.example', token: `leak-${randomUUID()}`, namespace: NAMESPACE });
    const res = await f.client.call('POST /provider-credentials', '/provider-credentials', { token, body: { provider: 'k8s', secret } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      params: { errors: [{ field: 'secret', message: expect.stringContaining('"server"') }] },
    });
    expect(res.text).not.toContain('leak-');
  });

  it('a run asked of the kubernetes provider in a workspace without its credential fails with a typed failure', async () => {
    const token = f.token('ws-bare');
    const id = await createRun(token, { workload: { image: 'busybox:1.36' }, provider: 'k8s', region: 'eu-1' });
    const events = await follow(id, token);
    expect(dataOf(events.at(-1))).toMatchObject({ failure: { code: 'provider_credential_missing' }, exitCode: null });
    expect(await terminalRun(f, id, token)).toMatchObject({ state: 'failed', failure: { code: 'provider_credential_missing' } });
  }, 60_000);
});
