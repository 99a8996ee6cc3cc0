import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { describeNeeding, podmanImagesMissing, readSse } from '@wrs/testing';
import { startStack, terminalRun, type StackFixture } from './stack-fixture';

/**
 * The service images themselves (docker/Dockerfile, built by scripts/podman/build-images.sh), run by
 * Podman on the host network as a whole stack: migrate, api, run-worker, stream-relay and gateway, each
 * in its own container with a read-only root filesystem, no capabilities and its image's non-root user.
 */
const REPOSITORY = 'localhost/wrs';
const TAG = process.env['WRS_IMAGE_TAG'] ?? 'dev';
const PODMAN_ENV = { CONTAINERS_CONF: process.env['CONTAINERS_CONF'] ?? '/etc/wrs-test/containers.conf' };
const KINDS = ['api', 'run-worker', 'stream-relay', 'gateway', 'migrate'];

const execFileAsync = promisify(execFile);

/**
 * Podman without blocking this process: execFileSync held the event loop for seconds (longer on a busy
 * machine) while fetch's pooled keep-alive socket to the gateway sat idle. The gateway closed it (Node
 * closes an idle connection after 5 s, plus 1 s on Node 24); fetch, unable to run its own shorter
 * idle timer meanwhile, wrote the next test's POST into the closed socket: "other side closed".
 */
async function podman(...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('podman', args, { env: { ...process.env, ...PODMAN_ENV }, encoding: 'utf8' });
  return stdout.trim();
}

/** The image's HEALTHCHECK command (`["CMD", ...]`), or null when it has none. */
async function healthcheckOf(image: string): Promise<string[] | null> {
  const healthcheck = JSON.parse(await podman('image', 'inspect', '--format', '{{json .Config.Healthcheck}}', image)) as {
    Test?: string[];
  } | null;
  return healthcheck?.Test ?? null;
}

const imagesMissing = podmanImagesMissing(
  KINDS.map((kind) => `${REPOSITORY}/${kind}:${TAG}`),
  { ...process.env, ...PODMAN_ENV },
);

describeNeeding(imagesMissing)('the service images, run as containers', () => {
  let f: StackFixture;

  beforeAll(async () => {
    f = await startStack(['ws-images'], {}, {}, { repository: REPOSITORY, tag: TAG, podmanEnv: PODMAN_ENV });
  }, 120_000);

  afterAll(async () => {
    await f?.stop();
  });

  it('each image runs as a non-root user and carries a HEALTHCHECK', async () => {
    for (const kind of KINDS) {
      const image = `${REPOSITORY}/${kind}:${TAG}`;
      expect({ kind, user: await podman('image', 'inspect', '--format', '{{.Config.User}}', image) }).toEqual({ kind, user: 'node' });
      if (kind !== 'migrate') {
        // The image's own check asks the service's liveness endpoint on the operator port.
        const test = await healthcheckOf(image);
        expect({ kind, test: test?.slice(0, 2), probe: test?.at(-1) }).toEqual({
          kind,
          test: ['CMD', 'node'],
          probe: expect.stringContaining('/health/live'),
        });
      }
    }
  });

  it('each image holds every production dependency and none of the tools the build needed', async () => {
    // The runtime copies node_modules from the pruned stage (docker/Dockerfile): copied from the build
    // stage instead, the test runner, compilers and linters ship in every image.
    const tools = ['jest', 'typescript', 'eslint', 'vite', '@swc/core', 'testcontainers', 'nx'];
    const probe = `const fs = require('fs'); const p = require('/app/package.json');
      const has = (n) => fs.existsSync('/app/node_modules/' + n + '/package.json');
      console.log(JSON.stringify({ missing: Object.keys(p.dependencies).filter((n) => !has(n)), tools: ${JSON.stringify(tools)}.filter(has) }));`;
    for (const kind of KINDS) {
      const image = `${REPOSITORY}/${kind}:${TAG}`;
      const found = JSON.parse(await podman('run', '--rm', '--network', 'none', '--entrypoint', 'node', image, '-e', probe)) as unknown;
      expect({ kind, found }).toEqual({ kind, found: { missing: [], tools: [] } });
    }
  });

  it('the containers run read-only, as uid 1000, without capabilities', async () => {
    for (const service of ['api', 'run-worker', 'stream-relay', 'gateway']) {
      const inspect = JSON.parse(await podman('container', 'inspect', f.stack.containerName(service)))[0] as {
        HostConfig: { ReadonlyRootfs: boolean; CapDrop?: string[] };
        State: { Pid: number; Running: boolean };
      };
      expect({ service, running: inspect.State.Running, readOnly: inspect.HostConfig.ReadonlyRootfs }).toEqual({
        service,
        running: true,
        readOnly: true,
      });
      expect(await podman('exec', f.stack.containerName(service), 'id', '-u')).toBe('1000');
      // The image's HEALTHCHECK command passes against the running service. It finds the operator port
      // in METRICS_PORT, fixed where the image is deployed (its default 9464); here every service shares
      // the host network and bound port 0 (METRICS_PORT=0), so the command is given the port the
      // service announced. (`podman healthcheck run` would ask port 0 and fail.)
      const [, ...command] = (await healthcheckOf(`${REPOSITORY}/${service}:${TAG}`)) ?? [];
      expect(command[0]).toBe('node');
      await podman('exec', '--env', `METRICS_PORT=${f.stack.metricsPortOf(service)}`, f.stack.containerName(service), ...command);
    }
  });

  it('serves the API through the gateway container and runs a run to its end', async () => {
    const token = f.token('ws-images');
    const version = await f.client.call('GET /version', '/version');
    expect(version.status).toBe(200);
    const created = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox:1.36', env: { SIM_DURATION_MS: '200', SIM_LOG_LINES: '2' } }, provider: 'auto', region: 'auto' },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const stream = await readSse(`${f.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 30_000 });
    expect(stream.endedByServer).toBe(true);
    expect(stream.events.map((e) => e.event)).toEqual(expect.arrayContaining(['run.created', 'run.started', 'run.succeeded']));
    expect(await terminalRun(f, id, token)).toMatchObject({ state: 'succeeded', terminal: true });
  });

  it('SIGTERM stops every container cleanly, and they are removed', async () => {
    await f.stack.stop();
    const left = await podman('ps', '--all', '--filter', `name=${f.env.namespace}-`, '--format', '{{.Names}}');
    expect(left).toBe('');
  });
});
