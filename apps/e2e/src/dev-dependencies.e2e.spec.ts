import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import { DEV_DEPENDENCY_LABEL, freePort } from '@wrs/devstack';
import { CONTAINER_SOCKET, ContractClient, containerEngineMissing, describeNeeding, lookalikeImage, readSse } from '@wrs/testing';
import { npmStart, type NpmStart } from './npm-start-fixture';

// The engine must hold the three look-alike images scripts/podman/setup.sh builds (no registry here).
const images = { nats: lookalikeImage('nats'), postgres: lookalikeImage('postgres'), redis: lookalikeImage('redis') };
const missing = Object.values(images)
  .map((image) => containerEngineMissing(CONTAINER_SOCKET, image))
  .find((why) => why !== undefined);

describeNeeding(missing)('npm start on a fresh machine: NATS, Postgres and Redis missing, a container engine (Podman) there', () => {
  const engine = new Docker({ socketPath: CONTAINER_SOCKET });
  let ports: { nats: number; postgres: number; redis: number };
  let vars: Record<string, string>;
  let stack: NpmStart | undefined;
  const names = (): string[] => [`wrs-dev-nats-${ports.nats}`, `wrs-dev-postgres-${ports.postgres}`, `wrs-dev-redis-${ports.redis}`];

  /** This test's containers, found by the label npm start gives them (other runs' are left alone). */
  async function ours(): Promise<Docker.ContainerInfo[]> {
    const labelled = await engine.listContainers({ all: true, filters: { label: [DEV_DEPENDENCY_LABEL] } });
    return labelled.filter((c) => c.Names.some((n) => names().includes(n.replace(/^\//, ''))));
  }

  async function createRunAndSeeItEnd(running: NpmStart): Promise<string> {
    const minted = await running.mint(['--workspace', 'demo']);
    expect(minted).toMatchObject({ code: 0 });
    const token = minted.stdout.trim().split('\n').at(-1) ?? '';
    const api = new ContractClient(running.baseUrl);
    const body = {
      workload: { image: 'busybox:1.36', args: ['true'], env: { SIM_DURATION_MS: '200' } },
      provider: 'simulator',
      region: 'local-1',
    };
    const created = await api.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': randomUUID() }, body });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const { events } = await readSse(`${running.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 60_000 });
    expect(events.at(-1)?.event).toBe('run.succeeded');
    return token;
  }

  beforeAll(async () => {
    // Free loopback ports: nothing listens there, and the shared servers on the standard ports stay untouched.
    ports = { nats: await freePort(), postgres: await freePort(), redis: await freePort() };
    vars = {
      DOCKER_HOST: `unix://${CONTAINER_SOCKET}`,
      NATS_URL: `nats://127.0.0.1:${ports.nats}`,
      DATABASE_URL: `postgres://wrsdev@127.0.0.1:${ports.postgres}/wrsdev`,
      REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
      WRS_IMAGE_NATS: images.nats,
      WRS_IMAGE_POSTGRES: images.postgres,
      WRS_IMAGE_REDIS: images.redis,
      // Fixed (the servers are this test's own), so the second start sees the first one's data.
      DATABASE_SCHEMA: 'devdeps',
      NAMESPACE: 'devdeps',
    };
    stack = await npmStart(vars);
  }, 300_000);

  afterAll(async () => {
    await stack?.stop().catch(() => undefined);
    await Promise.all((await ours()).map((c) => engine.getContainer(c.Id).remove({ force: true, v: true })));
  }, 120_000);

  it('says it started each as a container, with its name and image', () => {
    const output = stack?.output() ?? '';
    expect(output).toContain(
      `NATS (with JetStream) was not reachable at 127.0.0.1:${ports.nats}: started as a container wrs-dev-nats-${ports.nats}, image ${images.nats}`,
    );
    expect(output).toContain(
      `PostgreSQL was not reachable at 127.0.0.1:${ports.postgres}: started as a container wrs-dev-postgres-${ports.postgres}, image ${images.postgres}`,
    );
    expect(output).toContain(
      `Redis was not reachable at 127.0.0.1:${ports.redis}: started as a container wrs-dev-redis-${ports.redis}, image ${images.redis}`,
    );
    expect(output).toContain(`These containers stay running when the stack stops (they hold the development data): ${names().join(', ')}`);
  });

  it('serves on them: a token, a run created and followed to its end', async () => {
    await createRunAndSeeItEnd(stack!);
  }, 120_000);

  it('a stop leaves them running; the next npm start starts a stopped one again and keeps its data', async () => {
    await stack!.stop();
    expect(stack!.output()).toContain(
      `stack: stopped; left running (they hold the development data): ${names().join(', ')}; \`docker rm -fv`,
    );
    expect((await ours()).map((c) => c.State).sort()).toEqual(['running', 'running', 'running']);

    await engine.getContainer(`wrs-dev-postgres-${ports.postgres}`).stop();
    stack = await npmStart(vars);
    expect(stack.output()).toContain(
      `PostgreSQL was not reachable at 127.0.0.1:${ports.postgres}: reused the container (started again) wrs-dev-postgres-${ports.postgres}, image ${images.postgres}`,
    );
    expect(stack.output()).not.toContain('NATS (with JetStream) was not reachable');
    // The workspace and the run made before are still there.
    const token = await createRunAndSeeItEnd(stack);
    const listed = await new ContractClient(stack.baseUrl).call('GET /runs', '/runs', { token });
    expect((listed.body as { items: unknown[] }).items).toHaveLength(2);
  }, 300_000);

  it('removing the containers it caused, by their label, leaves none', async () => {
    await stack?.stop();
    stack = undefined;
    const found = await ours();
    expect(found).toHaveLength(3);
    await Promise.all(found.map((c) => engine.getContainer(c.Id).remove({ force: true, v: true })));
    expect(await ours()).toEqual([]);
  }, 120_000);
});
