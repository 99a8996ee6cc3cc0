import { randomUUID } from 'node:crypto';
import { eventually, readSse } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

describe('nothing acknowledged is lost when a component is killed (kill -9)', () => {
  let f: StackFixture;
  let token: string;

  beforeAll(async () => {
    f = await startStack(['ws-crash']);
    token = f.token('ws-crash');
  });

  afterAll(async () => {
    await f?.stop();
  });

  async function create(durationMs: number): Promise<string> {
    const res = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: String(durationMs) } }, provider: 'auto', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  async function finalState(id: string): Promise<string> {
    return eventually(
      async () => {
        const res = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token });
        const run = res.body as { terminal: boolean; state: string };
        return run.terminal ? run.state : undefined;
      },
      30_000,
      `run ${id} to finish`,
    );
  }

  it('runs accepted while the worker is dead finish after it restarts, each event once', async () => {
    await f.stack.kill('run-worker');
    const ids = await Promise.all(Array.from({ length: 5 }, () => create(200)));
    f.stack.startService('run-worker');
    for (const id of ids) {
      expect(await finalState(id)).toBe('succeeded');
      const events = await readSse(`${f.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` });
      expect(events.events.map((e) => e.event)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
    }
  });

  it('runs in flight when the worker is killed mid-run reach a terminal state after restart', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => create(1500)));
    await eventually(
      async () => {
        const states = await Promise.all(
          ids.map(async (id) => ((await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token })).body as { state: string }).state),
        );
        return states.every((s) => s === 'running') ? true : undefined;
      },
      15_000,
      'all running',
    );
    await f.stack.kill('run-worker');
    f.stack.startService('run-worker');
    for (const id of ids) {
      expect(await finalState(id)).toBe('succeeded');
    }
  });

  it('a follower of a run keeps every event across a relay kill, resuming with Last-Event-ID', async () => {
    const id = await create(1500);
    const first = await readSse(
      `${f.stack.baseUrl}/runs/${id}/events`,
      { authorization: `Bearer ${token}` },
      {
        until: (events) => events.some((e) => e.event === 'run.started'),
        timeoutMs: 10_000,
      },
    );
    await f.stack.restart('stream-relay');
    const lastId = first.events.at(-1)?.id ?? '0';
    const rest = await readSse(
      `${f.stack.baseUrl}/runs/${id}/events`,
      {
        authorization: `Bearer ${token}`,
        'last-event-id': lastId,
      },
      { timeoutMs: 15_000 },
    );
    const all = [...first.events, ...rest.events].map((e) => e.event);
    expect(all).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
  });
});
