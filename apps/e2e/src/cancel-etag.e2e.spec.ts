import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, containerEngineMissing, describeNeeding, eventually, readSse } from '@wrs/testing';
import { startStack, terminalRun, type StackFixture } from './stack-fixture';

const PROVIDERS = JSON.stringify([{ provider: 'container', regions: ['local'], priority: 0 }]);
/** A workload that prints a line every 100 ms until it is stopped. */
const CHATTY = 'i=0; while true; do echo "line $i"; i=$((i+1)); sleep 0.1; done';

type Run = { id: string; state: string; terminal: boolean; version: number; logLines: number };

/** The engine's own list (not the service's): the containers of one run, by its label. */
function containersOf(runId: string): Promise<unknown[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`io.workload-run-service.run=${runId}`] }));
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: CONTAINER_SOCKET, path: `/v1.41/containers/json?all=true&filters=${filters}`, timeout: 10_000 },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(JSON.parse(body) as unknown[]));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describeNeeding(containerEngineMissing())('cancel with If-Match as a person uses it (real containers, Podman here)', () => {
  let f: StackFixture;
  let token: string;

  beforeAll(async () => {
    f = await startStack(['ws-etag'], { CONTAINER_ENGINE_SOCKET: CONTAINER_SOCKET, PROVIDERS_JSON: PROVIDERS });
    token = f.token('ws-etag');
  });

  afterAll(async () => {
    await f?.stop();
  });

  const create = async (command: string): Promise<string> => {
    const res = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: CONTAINER_IMAGE, command: ['/bin/sh', '-c', command] }, provider: 'container', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return (res.body as Run).id;
  };
  const get = (id: string) => f.client.call('GET /runs/{runId}', `/runs/${id}`, { token });
  const cancel = (id: string, ifMatch: string) =>
    f.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, { token, headers: { 'if-match': ifMatch } });
  const runningWithLogs = (id: string) =>
    eventually(
      async () => {
        const res = await get(id);
        const run = res.body as Run;
        return run.state === 'running' && run.logLines > 0 ? res : undefined;
      },
      60_000,
      `run ${id} to be running and printing`,
    );

  it('a chatty run (a line every 100 ms) cancelled with the ETag of a GET taken 2 s earlier: 202 canceling, then canceled and gone', async () => {
    const id = await create(CHATTY);
    const read = await runningWithLogs(id);
    const etag = read.headers.get('etag')!;
    await new Promise((r) => setTimeout(r, 2000)); // the person reading the page before pressing cancel
    const later = (await get(id)).body as Run;
    // About 20 lines were printed meanwhile: each one used to change the ETag.
    expect(later.logLines).toBeGreaterThanOrEqual((read.body as Run).logLines + 10);
    const res = await cancel(id, etag);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id, state: 'canceling', terminal: false, cancellation: { requestedBy: 'test-user' } });
    expect((res.body as Run).version).toBeGreaterThan(Number(etag.replace(/"/g, '')));
    const events = await readSse(`${f.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 60_000 });
    expect(events.events.at(-1)?.event).toBe('run.canceled');
    await eventually(async () => ((await containersOf(id)).length === 0 ? true : undefined), 20_000, 'the container to be removed');
  }, 120_000);

  it('a cancel with an ETag from before a state change (the run finished) is 409 version_conflict naming the current version', async () => {
    const id = await create('echo started; sleep 1; echo more; sleep 3; echo done');
    const etag = (await runningWithLogs(id)).headers.get('etag')!;
    // Its next line leaves the ETag as it was; its end does not.
    const printed = await eventually(
      async () => {
        const res = await get(id);
        return (res.body as Run).logLines >= 2 && !(res.body as Run).terminal ? res : undefined;
      },
      10_000,
      'the second line',
    );
    expect(printed.headers.get('etag')).toBe(etag);
    const finished = await terminalRun(f, id, token);
    expect(finished).toMatchObject({ state: 'succeeded' });
    const res = await cancel(id, etag);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'version_conflict', params: { currentVersion: finished['version'] } });
    expect((await get(id)).headers.get('etag')).toBe(`"${String(finished['version'])}"`);
  }, 120_000);

  it('a cancel of a queued run (no worker to dispatch it) answers canceled, and no workload is ever started', async () => {
    await f.stack.kill('run-worker', 'SIGTERM');
    const id = await create('sleep 30');
    const queued = await get(id);
    expect(queued.body).toMatchObject({ state: 'queued' });
    const res = await cancel(id, queued.headers.get('etag')!);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id, state: 'canceled', terminal: true });
    await f.stack.restart('run-worker');
    expect(await terminalRun(f, id, token)).toMatchObject({ state: 'canceled', placement: null, dispatchedAt: null });
    expect(await containersOf(id)).toEqual([]);
  }, 120_000);
});
