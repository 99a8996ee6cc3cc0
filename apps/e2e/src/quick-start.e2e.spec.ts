import { randomUUID } from 'node:crypto';
import { freePort } from '@wrs/devstack';
import {
  CONTAINER_IMAGE,
  CONTAINER_SOCKET,
  ContractClient,
  containerEngineMissing,
  describeNeeding,
  readSse,
  type SseEvent,
} from '@wrs/testing';
import { npmStart, npmStartFailing, type NpmStart } from './npm-start-fixture';

/** README's first run (Quick start): the image is the one the README names for an engine without a registry. */
const firstRun = { workload: { image: CONTAINER_IMAGE, args: ['echo', 'hello'] }, provider: 'auto', region: 'auto' };

async function tokenFor(stack: NpmStart, workspace: string): Promise<string> {
  const minted = await stack.mint(['--workspace', workspace]);
  expect(minted).toMatchObject({ code: 0 });
  return minted.stdout.trim().split('\n').at(-1) ?? '';
}

/** The README walk-through: token, workspace, create the first run, follow it to its end. */
async function walkThrough(stack: NpmStart): Promise<{ run: Record<string, unknown>; events: SseEvent[] }> {
  // No DATABASE_SCHEMA here: the token must find the stack's own (this stack runs in a private schema).
  const token = await tokenFor(stack, 'demo');
  const api = new ContractClient(stack.baseUrl);
  const workspace = await api.call('GET /workspaces/current', '/workspaces/current', {
    token,
    headers: { 'x-service-workspace-id': 'demo' },
  });
  expect(workspace.status).toBe(200);
  const created = await api.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': randomUUID() }, body: firstRun });
  expect(created.status).toBe(201);
  const id = (created.body as { id: string }).id;
  const { events } = await readSse(`${stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 90_000 });
  const run = (await api.call('GET /runs/{runId}', `/runs/${id}`, { token })).body as Record<string, unknown>;
  return { run, events };
}

const logLines = (events: SseEvent[]): string[] =>
  events.filter((e) => e.event === 'run.log').map((e) => (JSON.parse(e.data) as { data: { line: string } }).data.line);

describeNeeding(containerEngineMissing())("npm start with a container engine (Podman): the README's first run is a real container", () => {
  let stack: NpmStart;

  beforeAll(async () => {
    stack = await npmStart({ DOCKER_HOST: `unix://${CONTAINER_SOCKET}` });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('offers the container provider to auto, the simulator only by name, and says why', () => {
    expect(stack.output()).toContain('providers: container [local], then simulator [local-1, local-2]');
    expect(stack.output()).toContain('"simulator" runs only when asked for by name');
    expect(stack.output()).toContain(`container engine: ${CONTAINER_SOCKET} (DOCKER_HOST)`);
    expect(stack.output()).not.toContain('RUNS ARE SIMULATED');
  });

  it('runs the first run in a container: its log says "hello"', async () => {
    const { run, events } = await walkThrough(stack);
    expect(events.at(-1)?.event).toBe('run.succeeded');
    expect(logLines(events)).toEqual(['hello']);
    expect(run['placement']).toMatchObject({ provider: 'container', region: 'local' });
  }, 120_000);

  it("npm run token refuses settings other than the running stack's, naming the variable", async () => {
    const refused = await stack.mint(['--workspace', 'demo'], { DATABASE_SCHEMA: 'public' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("DATABASE_SCHEMA differs from the running stack's");
    expect(refused.stdout).toBe('');
  });
});

describe('npm start without a container engine', () => {
  let stack: NpmStart;

  beforeAll(async () => {
    stack = await npmStart({ DOCKER_HOST: 'unix:///nonexistent/engine.sock' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('says plainly that runs are simulated, and how to get real ones', () => {
    expect(stack.output()).toContain('no container engine answered (DOCKER_HOST /nonexistent/engine.sock: no such socket)');
    expect(stack.output()).toContain('RUNS ARE SIMULATED');
    expect(stack.output()).toContain('podman system service --time=0 unix:///run/podman/podman.sock');
    expect(stack.output()).toContain('providers: simulator [local-1, local-2]');
  });

  it('the same first run is simulated: it succeeds on the simulator and prints no "hello"', async () => {
    const { run, events } = await walkThrough(stack);
    expect(events.at(-1)?.event).toBe('run.succeeded');
    expect(logLines(events)).toEqual([]);
    expect(run['placement']).toMatchObject({ provider: 'simulator' });
  }, 120_000);
});

describe('npm start without NATS, Postgres or Redis', () => {
  it('names what is missing with the command that starts it, and exits 1 before starting anything', async () => {
    const [nats, redis] = [await freePort(), await freePort()];
    // No engine either: with one, npm start would start them (dev-dependencies.e2e.spec.ts).
    const { code, output } = await npmStartFailing({
      NATS_URL: `nats://127.0.0.1:${nats}`,
      REDIS_URL: `redis://127.0.0.1:${redis}`,
      DOCKER_HOST: 'unix:///nonexistent/engine.sock',
    });
    expect(code).toBe(1);
    expect(output).toContain(`NATS (with JetStream) at 127.0.0.1:${nats} (NATS_URL): nothing listens there. To start one: docker run`);
    expect(output).toContain(`Redis at 127.0.0.1:${redis} (REDIS_URL): nothing listens there. To start one: docker run`);
    expect(output).toContain(`-p 127.0.0.1:${nats}:4222`);
    expect(output).toContain('With Docker or Podman running, npm start starts these itself.');
    expect(output).not.toContain('PostgreSQL at');
    expect(output).not.toMatch(/\n\s+at /);
  }, 60_000);
});
