import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import {
  buildBusyboxImage,
  CONTAINER_IMAGE,
  CONTAINER_SOCKET,
  containerEngineMissing,
  describeNeeding,
  eventually,
  itNeeding,
  loopbackRegistryMissing,
  pushToRegistry,
  readSse,
  removeLocalImage,
  startLoopbackRegistry,
  type SseEvent,
} from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

const SOCKET = CONTAINER_SOCKET;
const IMAGE = CONTAINER_IMAGE;

/** Asks the container engine directly (not through the service): what really runs. */
function engine(method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request({ socketPath: SOCKET, method, path: `/v1.41${path}`, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

const PROVIDERS = JSON.stringify([{ provider: 'container', regions: ['local'], priority: 0 }]);

describeNeeding(containerEngineMissing())('the container provider: real containers through the Docker Engine API (Podman here)', () => {
  let f: StackFixture;
  let token: string;

  beforeAll(async () => {
    f = await startStack(['ws-box'], { CONTAINER_ENGINE_SOCKET: SOCKET, PROVIDERS_JSON: PROVIDERS });
    token = f.token('ws-box');
  });

  afterAll(async () => {
    await f?.stop();
  });

  const run = async (command: string, extra: Record<string, unknown> = {}, image = IMAGE, fixture = f, t = token): Promise<string> => {
    const res = await fixture.client.call('POST /runs', '/runs', {
      token: t,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image, command: ['/bin/sh', '-c', command], ...extra }, provider: 'container', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  const follow = async (id: string, fixture = f, t = token): Promise<SseEvent[]> =>
    (await readSse(`${fixture.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${t}` }, { timeoutMs: 60_000 })).events;
  const containersOf = async (id: string): Promise<unknown[]> => {
    const filters = encodeURIComponent(JSON.stringify({ label: [`io.workload-run-service.run=${id}`] }));
    return JSON.parse((await engine('GET', `/containers/json?all=true&filters=${filters}`)).body) as unknown[];
  };
  const containerTest = (name: string, body: () => Promise<void>) => it(name, body, 90_000);

  containerTest('runs a container that echoes and exits 0: succeeded, with its output as log events, container removed', async () => {
    const id = await run('echo hello; echo oops >&2; echo world; exit 0');
    const events = await follow(id);
    expect(events.at(-1)?.event).toBe('run.succeeded');
    const logs = events
      .filter((e) => e.event === 'run.log')
      .map((e) => (JSON.parse(e.data) as { data: { line: string; stream: string } }).data);
    expect(logs.filter((l) => l.stream === 'stdout').map((l) => l.line)).toEqual(['hello', 'world']);
    expect(logs.filter((l) => l.stream === 'stderr').map((l) => l.line)).toEqual(['oops']);
    await eventually(async () => ((await containersOf(id)).length === 0 ? true : undefined), 10_000, 'the container to be removed');
  });

  containerTest('a non-zero exit fails the run with that exit code', async () => {
    const id = await run('exit 3');
    const events = await follow(id);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
      type: 'run.failed',
      data: { exitCode: 3, failure: { code: 'workload_exit_nonzero' } },
    });
  });

  containerTest('a sleeping run canceled mid-way ends canceled and its container is gone', async () => {
    const id = await run('sleep 300');
    await eventually(async () => ((await containersOf(id)).length === 1 ? true : undefined), 20_000, 'the container');
    await eventually(
      async () => {
        const r = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token });
        return (r.body as { state: string }).state === 'running' ? true : undefined;
      },
      20_000,
      'running',
    );
    expect((await f.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, { token })).status).toBe(202);
    const events = await follow(id);
    expect(events.map((e) => e.event).slice(-2)).toEqual(['run.cancel_requested', 'run.canceled']);
    await eventually(async () => ((await containersOf(id)).length === 0 ? true : undefined), 10_000, 'the container to be removed');
  });

  containerTest('a run past its timeout is killed and fails as timed_out', async () => {
    const id = await run('sleep 300', { timeoutSeconds: 2 });
    const events = await follow(id);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: 'run.failed', data: { failure: { code: 'timed_out' } } });
    await eventually(async () => ((await containersOf(id)).length === 0 ? true : undefined), 10_000, 'the container to be removed');
  });

  itNeeding(loopbackRegistryMissing())(
    'runs an image the engine does not have by its registry name: pulled, run, the pull in its log',
    async () => {
      const registry = await startLoopbackRegistry();
      const suffix = randomUUID().slice(0, 8);
      const local = `localhost/wrs-test/e2e-pull-${suffix}:1`;
      const image = `${registry.host}/wrs/e2e-pull-${suffix}:1`;
      try {
        buildBusyboxImage(local);
        pushToRegistry(local, registry.host, `wrs/e2e-pull-${suffix}:1`);
        removeLocalImage(local);
        const id = await run('echo pulled', {}, image);
        const events = await follow(id);
        expect(events.at(-1)?.event).toBe('run.succeeded');
        const lines = events.filter((e) => e.event === 'run.log').map((e) => (JSON.parse(e.data) as { data: { line: string } }).data.line);
        expect(lines).toEqual([expect.stringMatching(/^\[wrs\] pulled 127\.0\.0\.1:\d+\/wrs\/e2e-pull-\w+:1 in \d+\.\d s$/), 'pulled']);
      } finally {
        removeLocalImage(image);
        await registry.stop();
      }
    },
    90_000,
  );

  // The engine pulls a missing image, so "not found" has to come from a registry: a real one on loopback.
  itNeeding(loopbackRegistryMissing())(
    'an image its registry does not have fails the run as image_not_found',
    async () => {
      const registry = await startLoopbackRegistry();
      try {
        const id = await run('true', {}, `${registry.host}/wrs/nope-${randomUUID().slice(0, 8)}:1`);
        const events = await follow(id);
        expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: 'run.failed', data: { failure: { code: 'image_not_found' } } });
      } finally {
        await registry.stop();
      }
    },
    90_000,
  );

  it('a provider that stops answering fails its runs with a typed reason instead of leaving them running', async () => {
    // An engine socket that does not exist: every call fails, as if the engine had died.
    const dead = await startStack(['ws-dead'], {
      CONTAINER_ENGINE_SOCKET: '/tmp/wrs-no-such-engine.sock',
      PROVIDERS_JSON: PROVIDERS,
      PROVIDER_UNRESPONSIVE_SECONDS: '2',
    });
    try {
      const t = dead.token('ws-dead');
      const id = await run('true', {}, IMAGE, dead, t);
      const events = await follow(id, dead, t);
      expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
        type: 'run.failed',
        data: { failure: { code: 'provider_error', message: expect.stringContaining('has not answered') } },
      });
    } finally {
      await dead.stop();
    }
  }, 60_000);

  containerTest('a worker killed (SIGKILL) right after submitting, then restarted, leaves one container and a finished run', async () => {
    const crashing = await startStack(['ws-crash'], {
      CONTAINER_ENGINE_SOCKET: SOCKET,
      PROVIDERS_JSON: PROVIDERS,
      FAILPOINT: 'worker.after-submit',
    });
    try {
      const t = crashing.token('ws-crash');
      const id = await run('sleep 3; echo done', {}, IMAGE, crashing, t);
      await eventually(
        () => Promise.resolve(crashing.stack.processes.get('run-worker')?.signalCode === 'SIGKILL' ? true : undefined),
        20_000,
        'the worker to die',
      );
      expect(await containersOf(id)).toHaveLength(1);
      await crashing.stack.restart('run-worker', { FAILPOINT: '' });
      const events = await follow(id, crashing, t);
      expect(events.filter((e) => e.event === 'run.dispatched')).toHaveLength(1);
      expect(events.at(-1)?.event).toBe('run.succeeded');
      expect(events.filter((e) => e.event === 'run.log').map((e) => (JSON.parse(e.data) as { data: { line: string } }).data.line)).toEqual([
        'done',
      ]);
    } finally {
      await crashing.stop();
    }
  });
});
