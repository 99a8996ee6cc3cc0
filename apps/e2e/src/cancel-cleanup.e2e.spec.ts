import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, containerEngineMissing, describeNeeding, eventually } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

/** Runs cancelled at a random moment 0-500 ms after their create: many land between submit and dispatch. */
const RACED = 50;
/** Runs cancelled once running (the ordinary path: kill, confirm, release). */
const RUNNING = 10;
const PROVIDERS = JSON.stringify([{ provider: 'container', regions: ['local'], priority: 0 }]);

/** The engine's own list (not the service's): the containers of this stack that exist now, by run id. */
function containersOfStack(owner: string): Promise<Set<string>> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`io.workload-run-service.owner=${owner}`] }));
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: CONTAINER_SOCKET, path: `/v1.41/containers/json?all=true&filters=${filters}`, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        const listed = JSON.parse(body) as { Labels: Record<string, string> }[];
        resolve(new Set(listed.map((c) => c.Labels['io.workload-run-service.run'] ?? '')));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describeNeeding(containerEngineMissing())('no workload of a terminal run keeps running (real containers, Podman here)', () => {
  let f: StackFixture;
  let token: string;

  beforeAll(async () => {
    // A short cleanup interval so the test waits seconds, not the default half minute.
    f = await startStack(['ws-cancel'], { CONTAINER_ENGINE_SOCKET: CONTAINER_SOCKET, PROVIDERS_JSON: PROVIDERS, WORKLOAD_CLEANUP_INTERVAL_MS: '500' });
    token = f.token('ws-cancel');
  });

  afterAll(async () => {
    await f?.stop();
  });

  const create = async (): Promise<string> => {
    const res = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: CONTAINER_IMAGE, command: ['/bin/sh', '-c', 'sleep 30'] }, provider: 'container', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  const cancel = async (id: string): Promise<void> => {
    expect((await f.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, { token })).status).toBe(202);
  };
  const stateOf = async (id: string): Promise<string> =>
    ((await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token })).body as { state: string }).state;

  it(`${RACED} runs cancelled 0-500 ms after their create and ${RUNNING} cancelled while running all end canceled, and the engine keeps no container of any`, async () => {
    const running = await Promise.all(Array.from({ length: RUNNING }, create));
    const raced = await Promise.all(
      Array.from({ length: RACED }, async () => {
        const id = await create();
        await new Promise((r) => setTimeout(r, Math.random() * 500)); // the race itself, not a wait for the system
        await cancel(id);
        return id;
      }),
    );
    for (const id of running) {
      await eventually(async () => ((await stateOf(id)) === 'running' ? true : undefined), 60_000, `run ${id} to be running`);
      await cancel(id);
    }
    const ids = [...raced, ...running];
    await eventually(
      async () => ((await Promise.all(ids.map(stateOf))).every((s) => s === 'canceled') ? true : undefined),
      60_000,
      'every run to be canceled',
    );
    // A run is canceled only once its provider confirmed the workload gone: nothing is left for the cleanup.
    const leftAtCancel = [...(await containersOfStack(f.env.namespace))].filter((id) => ids.includes(id));
    expect(leftAtCancel).toEqual([]);
    const removed = f.logs.filter((l) => l.includes('stray workload removed')).length;
    process.stdout.write(`[cancel-cleanup] stray containers the cleanup removed: ${removed}\n`);
  }, 300_000);
});
