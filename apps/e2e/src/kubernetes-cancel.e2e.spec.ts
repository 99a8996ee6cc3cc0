import { randomBytes, randomUUID } from 'node:crypto';
import { eventually, patience, readSse, startFakeKubernetes, type FakeKubernetes } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

const NAMESPACE = 'wrs-runs';
const K8S_TOKEN = `k8s-${randomBytes(24).toString('base64url')}`;
const PROVIDERS = JSON.stringify([{ provider: 'k8s', kind: 'kubernetes', regions: ['eu-1'], priority: 0 }]);
const RUN_LABEL = 'workload-run-service.io/run';
/** Runs cancelled at a random moment 0-500 ms after their create: many land around the dispatch. */
const RACED = 20;
/** Runs cancelled the moment they are seen dispatched (`starting`). */
const JUST_DISPATCHED = 5;

/**
 * Issue #20 item 1 with the kubernetes provider (fake API server, no cluster here): a cancel deletes
 * the run's Job whenever it lands, and a Job is only created for a run whose dispatch was recorded.
 * The stray cleanup keeps its default interval, so this is the cancel's own work.
 */
describe('a cancel deletes the Job whenever it lands (kubernetes provider, fake API server)', () => {
  let fake: FakeKubernetes;
  let f: StackFixture;
  let token: string;

  beforeAll(async () => {
    fake = await startFakeKubernetes({ token: K8S_TOKEN, namespaces: [NAMESPACE] });
    // The fake cluster is on loopback: allowed as an operator allows its clusters' private range.
    f = await startStack(['ws-k8s-cancel'], { PROVIDERS_JSON: PROVIDERS, KUBERNETES_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' });
    token = f.token('ws-k8s-cancel');
    const secret = JSON.stringify({ server: fake.server, token: K8S_TOKEN, caCertificate: fake.caCertificate, namespace: NAMESPACE });
    expect(
      (await f.client.call('POST /provider-credentials', '/provider-credentials', { token, body: { provider: 'k8s', secret } })).status,
    ).toBe(201);
  });

  afterAll(async () => {
    await f?.stop();
    await fake?.stop();
    expect(fake.invalidBodies).toEqual([]);
  });

  const create = async (): Promise<string> => {
    const res = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      // The fake kubelet keeps the pod running for ten minutes: only a cancel ends it.
      body: { workload: { image: 'busybox:1.36', env: { FAKE_KUBELET_RUN_MS: '600000' } }, provider: 'k8s', region: 'eu-1' },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  const cancel = async (id: string): Promise<void> => {
    expect((await f.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, { token })).status).toBe(202);
  };
  const stateOf = async (id: string): Promise<string> => {
    const res = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token });
    expect(res.status).toBe(200);
    return (res.body as { state: string }).state;
  };
  const jobsOf = (id: string) => fake.jobs().filter((j) => j.metadata?.labels?.[RUN_LABEL] === id);
  const dispatchTimes = async (id: string): Promise<number[]> => {
    const { events } = await readSse(`${f.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 20_000 });
    return events
      .filter((e) => e.event === 'run.dispatched')
      .map((e) => Date.parse((JSON.parse(e.data) as { data: { at: string } }).data.at));
  };

  it(
    `${RACED} runs cancelled 0-500 ms after their create and ${JUST_DISPATCHED} cancelled right after their dispatch all end canceled with no Job left at that moment, each Job created once and only after its dispatch was recorded`,
    async () => {
      const raced = Array.from({ length: RACED }, async () => {
        const id = await create();
        await new Promise((r) => setTimeout(r, Math.random() * 500)); // the race itself, not a wait for the system
        await cancel(id);
        return id;
      });
      const justDispatched = Array.from({ length: JUST_DISPATCHED }, async () => {
        const id = await create();
        await eventually(async () => ((await stateOf(id)) === 'queued' ? undefined : true), 30_000, `run ${id} to be dispatched`);
        await cancel(id);
        return id;
      });
      const ids = await Promise.all([...raced, ...justDispatched]);

      // Each run until terminal; the moment one is seen canceled, is a Job of it still there?
      const ends = new Map<string, string>();
      const jobAtCancel: string[] = [];
      const deadline = Date.now() + patience(60_000);
      while (ends.size < ids.length && Date.now() < deadline) {
        for (const id of ids.filter((i) => !ends.has(i))) {
          const state = await stateOf(id);
          if (['succeeded', 'failed', 'canceled'].includes(state)) {
            ends.set(id, state);
            jobAtCancel.push(...jobsOf(id).map((j) => `${id}: Job ${j.metadata?.name ?? ''} still there when the run was seen ${state}`));
          }
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const notCanceled = ids.filter((id) => ends.get(id) !== 'canceled').map((id) => `${id}: ${ends.get(id) ?? 'not terminal'}`);

      const createdTwice: string[] = [];
      const createdBeforeDispatch: string[] = [];
      for (const id of ids) {
        const made = fake.creations.filter((c) => c.labels[RUN_LABEL] === id).map((c) => c.at.getTime());
        if (made.length === 0) {
          continue;
        }
        if (made.length > 1) {
          createdTwice.push(`${id}: ${made.length} Jobs created`);
        }
        const dispatched = await dispatchTimes(id);
        if (!dispatched.some((at) => at <= Math.min(...made))) {
          createdBeforeDispatch.push(
            `${id}: Job created at ${new Date(Math.min(...made)).toISOString()}, ${dispatched.length ? `dispatch recorded at ${dispatched.map((d) => new Date(d).toISOString()).join(', ')}` : 'no dispatch recorded'}`,
          );
        }
      }
      const left = ids.flatMap((id) => jobsOf(id).map(() => id));

      expect({ notCanceled, jobAtCancel, createdTwice, createdBeforeDispatch, left }).toEqual({
        notCanceled: [],
        jobAtCancel: [],
        createdTwice: [],
        createdBeforeDispatch: [],
        left: [],
      });
    },
    patience(240_000),
  );
});
