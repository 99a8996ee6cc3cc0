import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureDevKeyPair } from '@wrs/auth';
import { freePort } from '@wrs/devstack';
import {
  CONTAINER_IMAGE,
  ContractClient,
  containerEngineMissing,
  describeNeeding,
  eventually,
  executableMissing,
  patience,
  podmanImagesMissing,
  readSse,
  type SseEvent,
} from '@wrs/testing';
import { ComposeProject } from './compose/compose-project';
import { startEngineSocket, type EngineSocket } from './compose/engine-socket';

/**
 * docker/compose.yaml run for real with podman-compose: the locally built service images and the
 * Debian look-alikes of its NATS, Postgres and Redis images, every service started at once (nothing
 * waits on depends_on conditions), the README walk-through and the contract through the edge, a real
 * container run on the host's engine through the mounted socket, then down with nothing left behind.
 */
const TAG = process.env['WRS_IMAGE_TAG'] ?? 'dev';
const SERVICE_IMAGES = { API: 'api', RUN_WORKER: 'run-worker', STREAM_RELAY: 'stream-relay', GATEWAY: 'gateway', MIGRATE: 'migrate' };
const INFRA_IMAGES = {
  WRS_IMAGE_NATS: 'localhost/wrs-test/nats:2.9',
  WRS_IMAGE_POSTGRES: 'localhost/wrs-test/postgres:15',
  WRS_IMAGE_REDIS: 'localhost/wrs-test/redis:7',
};
const PODMAN_ENV = { ...process.env, CONTAINERS_CONF: process.env['CONTAINERS_CONF'] ?? '/etc/wrs-test/containers.conf' };
const DIST = join(__dirname, '..', '..', '..', 'dist');
const WORKSPACE = 'compose-demo';

const images = [...Object.values(SERVICE_IMAGES).map((t) => `localhost/wrs/${t}:${TAG}`), ...Object.values(INFRA_IMAGES), CONTAINER_IMAGE];
const missing =
  executableMissing('/usr/bin/podman-compose', 'apt-get install podman-compose aardvark-dns') ??
  containerEngineMissing() ??
  podmanImagesMissing(images, PODMAN_ENV);

const execFileAsync = promisify(execFile);

/** Asks the test's engine socket which containers a run has (the worker labels each one). */
function containersOf(socketPath: string, runId: string): Promise<unknown[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`io.workload-run-service.run=${runId}`] }));
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: `/v1.41/containers/json?all=true&filters=${filters}`, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(JSON.parse(body) as unknown[]));
    });
    req.on('timeout', () => req.destroy(new Error('engine did not answer')));
    req.on('error', reject);
    req.end();
  });
}

describeNeeding(missing)('the Compose stack (docker/compose.yaml) under podman-compose', () => {
  let engine: EngineSocket;
  let project: ComposeProject;
  let keysDir: string;
  let client: ContractClient;
  let base: string;
  let token: string;
  let down = false;
  const runIds: string[] = [];

  beforeAll(async () => {
    engine = await startEngineSocket(PODMAN_ENV);
    // What `npm run token` makes: a key folder of mode 0700 whose files belong to this (root) user.
    keysDir = mkdtempSync(join(tmpdir(), 'wrs-compose-keys-'));
    ensureDevKeyPair(keysDir);
    const [edgePort, postgresPort] = [await freePort(), await freePort()];
    const variables: Record<string, string> = {
      ...INFRA_IMAGES,
      ...Object.fromEntries(
        Object.entries(SERVICE_IMAGES).map(([name, target]) => [`WRS_IMAGE_${name}`, `localhost/wrs/${target}:${TAG}`]),
      ),
      WRS_NATS_CONFIG: 'nats-2.9.conf',
      WRS_KEYS_DIR: keysDir,
      WRS_EDGE_PORT: String(edgePort),
      WRS_POSTGRES_PORT: String(postgresPort),
      WRS_ENGINE_SOCKET: engine.path,
      WRS_ENGINE_GID: String(engine.gid),
    };
    project = new ComposeProject(`wrscompose${randomBytes(4).toString('hex')}`, { ...PODMAN_ENV, ...variables });
    await project.up();
    base = `http://127.0.0.1:${edgePort}/api/v1`;
    client = new ContractClient(base);
    try {
      await eventually(
        async () => {
          const version = await fetch(`${base}/version`).catch(() => undefined);
          return version?.status === 200 ? true : undefined;
        },
        240_000,
        'the api to answer through the edge',
      );
    } catch (error) {
      const logs = await Promise.all(
        ['migrate', 'api', 'stream-relay', 'run-worker', 'gateway'].map(async (s) => `--- ${s}\n${await project.logs(s)}`),
      );
      throw new Error(`${String(error)}\n${logs.join('\n')}`);
    }
    // The README's step 2: the token command creates the workspace through the published Postgres port.
    const minted = await execFileAsync(process.execPath, [join(DIST, 'scripts/src/mint-token.js'), '--workspace', WORKSPACE], {
      env: { PATH: process.env['PATH'] ?? '', DEV_KEYS_DIR: keysDir, DATABASE_URL: `postgres://wrs:wrs@127.0.0.1:${postgresPort}/wrs` },
      encoding: 'utf8',
    });
    token = minted.stdout.trim().split('\n').at(-1) ?? '';
  }, patience(360_000));

  afterAll(async () => {
    if (project && !down) {
      await project.down().catch(() => undefined);
      // A test that failed mid-way may leave a run's container that no worker is left to remove.
      for (const id of runIds) {
        const left = await project.podman('ps', '-aq', '--filter', `label=io.workload-run-service.run=${id}`).catch(() => '');
        for (const container of left.split('\n').filter(Boolean)) {
          await project.podman('rm', '-f', container).catch(() => undefined);
        }
      }
    }
    await engine?.stop();
    rmSync(keysDir, { recursive: true, force: true });
  }, 120_000);

  it('the services read the public key from a volume of uid 1000 though the key folder is 0700; the worker keeps uid 1000 and takes the socket group', async () => {
    expect(statSync(keysDir).mode & 0o777).toBe(0o700);
    for (const service of ['api', 'stream-relay']) {
      expect({ service, uid: await project.podman('exec', project.container(service), 'id', '-u') }).toEqual({ service, uid: '1000' });
      const modes = await project.podman(
        'exec',
        project.container(service),
        'stat',
        '-c',
        '%u:%g %a',
        '/keys',
        '/keys/dev-signing-key.pub.pem',
      );
      expect({ service, modes: modes.split('\n') }).toEqual({ service, modes: ['1000:1000 500', '1000:1000 400'] });
    }
    const worker = project.container('run-worker');
    expect([await project.podman('exec', worker, 'id', '-u'), await project.podman('exec', worker, 'id', '-g')]).toEqual([
      '1000',
      String(engine.gid),
    ]);
    expect(await project.podman('exec', worker, 'stat', '-c', '%a', '/run/engine.sock')).toBe('660');
  });

  it('the README walk-through through the edge: a real container run, its events, a cancel, the list', async () => {
    expect((await client.call('GET /version', '/version')).status).toBe(200);
    const current = await client.call('GET /workspaces/current', '/workspaces/current', {
      token,
      headers: { 'x-service-workspace-id': WORKSPACE },
    });
    expect({ status: current.status, id: (current.body as { id: string }).id }).toEqual({ status: 200, id: WORKSPACE });

    const created = await client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: {
        workload: { image: CONTAINER_IMAGE, args: ['echo', 'hello'], env: { SIM_DURATION_MS: '2000' } },
        provider: 'auto',
        region: 'auto',
      },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    runIds.push(id);
    const read = await client.call('GET /runs/{runId}', `/runs/${id}`, { token });
    expect({ status: read.status, etag: read.headers.get('etag') }).toEqual({ status: 200, etag: expect.stringMatching(/^"\d+"$/) });

    // The events path reaches the relay (the api has no such route); the stream ends at the terminal event.
    const stream = await readSse(`${base}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 120_000 });
    expect(stream.endedByServer).toBe(true);
    const types = stream.events.map((e) => e.event);
    expect(types.at(-1)).toBe('run.succeeded');
    const dispatched = stream.events.find((e) => e.event === 'run.dispatched') as SseEvent;
    expect((JSON.parse(dispatched.data) as { data: { placement: { provider: string } } }).data.placement.provider).toBe('container');
    const lines = stream.events
      .filter((e) => e.event === 'run.log')
      .map((e) => (JSON.parse(e.data) as { data: { line: string } }).data.line);
    expect(lines).toEqual(['hello']);
    await eventually(
      async () => ((await containersOf(engine.path, id)).length === 0 ? true : undefined),
      20_000,
      'the run container to be removed',
    );

    // Cancel a run whose container is running.
    const sleeping = await client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: CONTAINER_IMAGE, args: ['sleep', '300'] }, provider: 'container', region: 'auto' },
    });
    expect(sleeping.status).toBe(201);
    const sleeper = (sleeping.body as { id: string }).id;
    runIds.push(sleeper);
    await eventually(
      async () => {
        const r = await client.call('GET /runs/{runId}', `/runs/${sleeper}`, { token });
        return (r.body as { state: string }).state === 'running' ? true : undefined;
      },
      60_000,
      'the sleeping run to be running',
    );
    expect((await containersOf(engine.path, sleeper)).length).toBe(1);
    expect((await client.call('POST /runs/{runId}:cancel', `/runs/${sleeper}:cancel`, { token })).status).toBe(202);
    const canceled = await readSse(`${base}/runs/${sleeper}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 60_000 });
    expect(canceled.events.map((e) => e.event).slice(-2)).toEqual(['run.cancel_requested', 'run.canceled']);
    await eventually(
      async () => ((await containersOf(engine.path, sleeper)).length === 0 ? true : undefined),
      30_000,
      'the canceled container to be removed',
    );

    const list = await client.call('GET /runs', '/runs?limit=10', { token });
    expect(list.status).toBe(200);
    expect((list.body as { items: { id: string }[] }).items.map((r) => r.id).sort()).toEqual([...runIds].sort());
  }, 300_000);

  it('the edge sends /console to the api, as the Ingress does', async () => {
    const console = await fetch(`${base.replace(/\/api\/v1$/, '')}/console/`);
    expect({ status: console.status, type: console.headers.get('content-type') }).toEqual({
      status: 200,
      type: expect.stringContaining('text/html'),
    });
  });

  it('the NATS configurations: the look-alike (nats-server 2.9) loads nats-2.9.conf and refuses nats.conf, whose sync_interval is 2.12-only', async () => {
    const check = (file: string) =>
      project
        .podman(
          'run',
          '--rm',
          '--network',
          'none',
          '-v',
          `${join(__dirname, '..', '..', '..', 'docker', 'nats', file)}:/etc/nats/nats.conf:ro`,
          INFRA_IMAGES.WRS_IMAGE_NATS,
          '-c',
          '/etc/nats/nats.conf',
          '-t',
        )
        .then(
          () => 'loads',
          (error: { stderr?: string }) => error.stderr ?? 'refused',
        );
    expect(await check('nats-2.9.conf')).toBe('loads');
    expect(await check('nats.conf')).toContain('unknown field "sync_interval"');
  });

  it('down removes every container, volume and network of the project, and no run container is left', async () => {
    down = true;
    await project.down();
    expect(await project.leftovers()).toEqual({ containers: [], volumes: [], networks: [] });
    for (const id of runIds) {
      expect({ id, containers: await containersOf(engine.path, id) }).toEqual({ id, containers: [] });
    }
  }, 120_000);
});
