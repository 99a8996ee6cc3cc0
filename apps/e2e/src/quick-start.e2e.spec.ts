import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { freePort } from '@wrs/devstack';
import {
  CONTAINER_IMAGE,
  CONTAINER_SOCKET,
  ContractClient,
  containerEngineMissing,
  describeNeeding,
  eventually,
  patience,
  readSse,
  type SseEvent,
} from '@wrs/testing';
import { npmStart, npmStartFailing, type NpmStart } from './npm-start-fixture';
import { readmeWalkThrough } from './readme-walk-through';

/**
 * README's walk-through (Calling the API with curl), its bodies and what it says will be seen read from
 * README.md itself. Its image (step 4's IMAGE) is the tests' container image, CONTAINER_IMAGE, unless
 * WRS_TEST_CONTAINER_IMAGE names another (readme-walk-through.unit.spec.ts holds the README to that).
 */
const readme = readmeWalkThrough();

async function tokenFor(stack: NpmStart, workspace: string): Promise<string> {
  const minted = await stack.mint(['--workspace', workspace]);
  expect(minted).toMatchObject({ code: 0 });
  return minted.stdout.trim().split('\n').at(-1) ?? '';
}

const logLines = (events: SseEvent[]): string[] =>
  events.filter((e) => e.event === 'run.log').map((e) => (JSON.parse(e.data) as { data: { line: string } }).data.line);

/** The engine's own list, as step 6's `podman ps --filter name=wrs-$RUN` (step 7 adds -a: stopped ones too). */
function containersNamed(name: string, all: boolean): Promise<{ State: string }[]> {
  const filters = encodeURIComponent(JSON.stringify({ name: [name] }));
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: CONTAINER_SOCKET, path: `/v1.41/containers/json?all=${all}&filters=${filters}`, timeout: 10_000 },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          const listed = JSON.parse(body) as { State: string; Names: string[] }[];
          // The filter matches part of a name: keep the one named exactly.
          resolve(listed.filter((c) => c.Names.some((n) => n.replace(/^\//, '') === name)));
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface WalkThrough {
  /** Step 4's run after step 7: canceled. */
  readonly run: Record<string, unknown>;
  /** Step 6's first read (stopped by the test, as curl's --max-time), and the resumed read. */
  readonly followed: SseEvent[];
  readonly resumed: SseEvent[];
  /** Step 7: the cancel's answer and the stream from LAST to its end. */
  readonly canceled: Record<string, unknown>;
  readonly toTheEnd: { events: SseEvent[]; endedByServer: boolean };
  /** Step 5's second run, answered when done, and its events. */
  readonly waited: { status: number; run: Record<string, unknown>; events: SseEvent[] };
}

/**
 * The README walk-through, step by step: token, workspace, the 5-minute run, its state, the run waited
 * for, following the first run and resuming after an id seen, cancelling it while it runs and following
 * it to its end. It does not wait 5 minutes: the cancel ends the run. `whileRunning` is step 6's look
 * at the engine, made while the run is up.
 */
async function walkThrough(stack: NpmStart, whileRunning: (runId: string) => Promise<void> = async () => {}): Promise<WalkThrough> {
  // No DATABASE_SCHEMA here: the token must find the stack's own (this stack runs in a private schema).
  const token = await tokenFor(stack, 'demo'); // step 2
  const api = new ContractClient(stack.baseUrl);
  const auth = { authorization: `Bearer ${token}` };
  const workspace = await api.call('GET /workspaces/current', '/workspaces/current', {
    token,
    headers: { 'x-service-workspace-id': 'demo' },
  }); // step 3
  expect(workspace.status).toBe(200);

  const created = await api.call('POST /runs', '/runs', {
    token,
    headers: { 'idempotency-key': randomUUID() },
    body: readme.createBody(CONTAINER_IMAGE),
  }); // step 4
  expect(created.status).toBe(201);
  const id = (created.body as { id: string }).id;

  const read = await api.call('GET /runs/{runId}', `/runs/${id}`, { token }); // step 5
  expect({ status: read.status, etag: read.headers.get('etag') }).toEqual({ status: 200, etag: expect.stringMatching(/^"\d+"$/) });
  const answered = await api.call('POST /runs', '/runs', {
    token,
    headers: { 'idempotency-key': randomUUID(), prefer: readme.waitPrefer },
    body: readme.waitBody(CONTAINER_IMAGE),
  });
  const answeredRun = answered.body as Record<string, unknown> & { id: string };
  // Prefer: wait answers by its cap even when the run is not done; on a busy box a container can take
  // longer, and the run is then followed to its end, so the README's outcome is what is checked.
  const waitedEvents = (await readSse(`${stack.baseUrl}/runs/${answeredRun.id}/events`, auth, { timeoutMs: patience(30_000) })).events;
  const waitedRun =
    answeredRun['terminal'] === true
      ? answeredRun
      : await eventually(
          async () => {
            const body = (await api.call('GET /runs/{runId}', `/runs/${answeredRun.id}`, { token })).body as Record<string, unknown>;
            return body['terminal'] === true ? (body as typeof answeredRun) : undefined;
          },
          30_000,
          'the waited run to be terminal',
        );

  // Step 6: follow (curl stops after --max-time; here, once two log lines came, which is within it).
  const followed = await readSse(`${stack.baseUrl}/runs/${id}/events`, auth, {
    until: (events) => logLines(events).length >= 2,
    timeoutMs: 60_000,
  });
  expect(followed.endedByServer).toBe(false);
  const last = followed.events[readme.resumeAfter.index]!;
  expect(last.event).toBe(readme.resumeAfter.type);
  const after = followed.events.slice(readme.resumeAfter.index + 1);
  const resumed = await readSse(
    `${stack.baseUrl}/runs/${id}/events`,
    { ...auth, 'last-event-id': last.id! },
    { until: (events) => events.length > after.length, timeoutMs: 30_000 },
  );
  await whileRunning(id);

  // Step 7: cancel within its 5 minutes, then follow from LAST to the end.
  const cancel = await api.call('POST /runs/{runId}:cancel', readme.cancelPath(id), { token });
  expect(cancel.status).toBe(202);
  const toTheEnd = await readSse(`${stack.baseUrl}/runs/${id}/events`, { ...auth, 'last-event-id': last.id! }, { timeoutMs: 60_000 });
  // The state is read from the projection, a moment behind the stream that has just ended.
  const run = await eventually(
    async () => {
      const body = (await api.call('GET /runs/{runId}', `/runs/${id}`, { token })).body as Record<string, unknown>;
      return body['terminal'] === true ? body : undefined;
    },
    10_000,
    'the run to be terminal in GET /runs/{runId}',
  );
  return {
    run,
    followed: followed.events,
    resumed: resumed.events,
    canceled: cancel.body as Record<string, unknown>,
    toTheEnd,
    waited: { status: answered.status, run: waitedRun, events: waitedEvents },
  };
}

/** What the README says of every walk-through, with a container or simulated. */
function expectTheReadmeWalkThrough(walk: WalkThrough, lines: { first: string[]; provider: string }): void {
  // Step 5: the second run's answer came when it was done.
  expect(walk.waited.status).toBe(201);
  expect(walk.waited.run).toMatchObject({ state: 'succeeded', terminal: true });
  // Step 6: run.created, run.dispatched, run.started, then a log line a second.
  const { followed, resumed } = walk;
  expect(followed.slice(0, 3).map((e) => e.event)).toEqual(['run.created', 'run.dispatched', 'run.started']);
  expect(logLines(followed).slice(0, lines.first.length)).toEqual(lines.first);
  // Resuming after an id seen goes on from the event after it: what the first read saw after it, then more.
  const last = Number(followed[readme.resumeAfter.index]!.id);
  const after = followed.slice(readme.resumeAfter.index + 1);
  expect(resumed.slice(0, after.length)).toEqual(after);
  expect(resumed.length).toBeGreaterThan(after.length);
  expect(resumed.every((e) => Number(e.id) > last)).toBe(true);
  // Step 7: the answer is the run after the cancel, as it was running; its stream ends with the cancel.
  expect(walk.canceled).toMatchObject({ state: readme.stateAfterCancel, terminal: false });
  const { events, endedByServer } = walk.toTheEnd;
  expect(endedByServer).toBe(true);
  expect(events.slice(0, resumed.length)).toEqual(resumed);
  // The README's last two events, in its order. A tick printed just before the kill may be observed, and
  // recorded, after the cancel was asked for: a log line between them is a line kept, not a failure.
  const [requested, ended] = readme.lastEvents;
  const kinds = events.map((e) => e.event);
  expect(kinds.at(-1)).toBe(ended);
  expect(kinds.filter((k) => k === requested)).toHaveLength(1);
  const between = kinds.slice(kinds.indexOf(requested) + 1, -1);
  expect(between.filter((k) => k !== 'run.log')).toEqual([]);
  expect(new Set(kinds.slice(0, kinds.indexOf(requested)))).toEqual(new Set(['run.started', 'run.log']));
  const ids = events.map((e) => Number(e.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
  expect(walk.run).toMatchObject({ state: 'canceled', terminal: true, placement: { provider: lines.provider } });
}

describeNeeding(containerEngineMissing())(
  "npm start with a container engine (Podman): the README's walk-through runs a real container",
  () => {
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

    it("runs the README's walk-through in a container: follows its ticks, resumes after an id seen, cancels it while it runs", async () => {
      const name = (runId: string): string => `${readme.containerNamePrefix}${runId}`;
      let up: { State: string }[] = [];
      let runId = '';
      const walk = await walkThrough(stack, async (id) => {
        runId = id;
        up = await containersNamed(name(id), false);
      });
      expectTheReadmeWalkThrough(walk, { first: [...readme.containerLines], provider: 'container' });
      expect(walk.run['placement']).toMatchObject({ provider: 'container', region: 'local' });
      expect(up.map((c) => c.State)).toEqual(['running']);
      // The worker stops and removes the container: `podman ps -a --filter name=wrs-$RUN` lists nothing.
      await eventually(
        async () => ((await containersNamed(name(runId), true)).length === 0 ? true : undefined),
        30_000,
        'the container removed',
      );
      // Step 5's run was a container too: its log says "hello".
      expect(logLines(walk.waited.events)).toEqual(['hello']);
    }, 180_000);

    it("npm run token refuses settings other than the running stack's, naming the variable", async () => {
      const refused = await stack.mint(['--workspace', 'demo'], { DATABASE_SCHEMA: 'public' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("DATABASE_SCHEMA differs from the running stack's");
      expect(refused.stdout).toBe('');
    });
  },
);

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

  it('the README\'s walk-through is simulated: a log line a second, followed, resumed, canceled; no "hello"', async () => {
    const walk = await walkThrough(stack);
    expectTheReadmeWalkThrough(walk, { first: [readme.simulatedLine], provider: 'simulator' });
    expect(logLines(walk.waited.events)).toEqual([]);
  }, 180_000);
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
