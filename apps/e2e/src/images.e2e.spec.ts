import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readSse } from '@wrs/testing';
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

function podman(...args: string[]): string {
  return execFileSync('podman', args, { env: { ...process.env, ...PODMAN_ENV }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function imagesPresent(): boolean {
  try {
    return KINDS.every((kind) => podman('image', 'exists', `${REPOSITORY}/${kind}:${TAG}`) === '');
  } catch {
    return false;
  }
}

const present = imagesPresent();
if (!present) {
  console.warn(`SKIPPED: the service images ${REPOSITORY}/<service>:${TAG} are not built (bash scripts/podman/build-images.sh)`);
}
const describeIfImages = present ? describe : describe.skip;

describeIfImages('the service images, run as containers', () => {
  let f: StackFixture;

  beforeAll(async () => {
    f = await startStack(['ws-images'], {}, {}, { repository: REPOSITORY, tag: TAG, podmanEnv: PODMAN_ENV });
  }, 120_000);

  afterAll(async () => {
    await f?.stop();
  });

  it('each image runs as a non-root user and carries a HEALTHCHECK', () => {
    for (const kind of KINDS) {
      const image = `${REPOSITORY}/${kind}:${TAG}`;
      expect({ kind, user: podman('image', 'inspect', '--format', '{{.Config.User}}', image) }).toEqual({ kind, user: 'node' });
      if (kind !== 'migrate') {
        // The image's own check asks the service's liveness endpoint on the operator port.
        const healthcheck = JSON.parse(podman('image', 'inspect', '--format', '{{json .Config.Healthcheck}}', image)) as { Test?: string[] } | null;
        expect({ kind, test: healthcheck?.Test?.slice(0, 2), probe: healthcheck?.Test?.at(-1) }).toEqual({
          kind,
          test: ['CMD', 'node'],
          probe: expect.stringContaining('/health/live'),
        });
      }
    }
  });

  it('the containers run read-only, as uid 1000, without capabilities', () => {
    for (const service of ['api', 'run-worker', 'stream-relay', 'gateway']) {
      const inspect = JSON.parse(podman('container', 'inspect', f.stack.containerName(service)))[0] as {
        HostConfig: { ReadonlyRootfs: boolean; CapDrop?: string[] };
        State: { Pid: number; Running: boolean };
      };
      expect({ service, running: inspect.State.Running, readOnly: inspect.HostConfig.ReadonlyRootfs }).toEqual({ service, running: true, readOnly: true });
      expect(podman('exec', f.stack.containerName(service), 'id', '-u')).toBe('1000');
      // The image's HEALTHCHECK, run once by the engine, passes against the running service.
      expect(() => podman('healthcheck', 'run', f.stack.containerName(service))).not.toThrow();
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
    const left = podman('ps', '--all', '--filter', `name=${f.env.namespace}-`, '--format', '{{.Names}}');
    expect(left).toBe('');
  });
});
