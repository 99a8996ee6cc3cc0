import { randomUUID } from 'node:crypto';
import { eventually, readSse } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

/**
 * Two of each component behind the gateway, one of each sent SIGTERM while runs are created and
 * followed: every run accepted finishes, with each of its events exactly once.
 */
describe('replicas cooperate: 2 api, 2 run-worker, 2 stream-relay', () => {
  let f: StackFixture;
  let token: string;

  beforeAll(async () => {
    f = await startStack(['ws-scale'], {}, { api: 2, 'run-worker': 2, 'stream-relay': 2 });
    token = f.token('ws-scale');
  });

  afterAll(async () => {
    await f?.stop();
  });

  /** The client rules: retry 503 and other retryable answers with the same key. */
  async function create(): Promise<string> {
    const key = randomUUID();
    for (let attempt = 0; attempt < 20; attempt++) {
      const res = await f.client.call('POST /runs', '/runs', {
        token,
        headers: { 'idempotency-key': key },
        body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '1500', SIM_LOG_LINES: '5' } }, provider: 'auto', region: 'auto' },
      });
      if (res.status === 201) {
        return (res.body as { id: string }).id;
      }
      expect((res.body as { retryable: boolean }).retryable).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('create did not succeed');
  }

  it('loses nothing when one process of each kind is stopped mid-test', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push(await create());
    }
    // Stop the second replica of each kind gracefully while those runs are in flight.
    const stopped = ['api-2', 'run-worker-2', 'stream-relay-2'].map(async (name) => {
      const child = f.stack.processes.get(name)!;
      const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return exit;
    });
    for (let i = 0; i < 10; i++) {
      ids.push(await create());
    }
    expect(await Promise.all(stopped)).toEqual([0, 0, 0]);

    for (const id of ids) {
      await eventually(
        async () => {
          const r = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token });
          return (r.body as { terminal: boolean }).terminal ? true : undefined;
        },
        30_000,
        `run ${id} to finish`,
      );
      const events = (await readSse(`${f.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` })).events;
      const types = events.map((e) => e.event);
      expect(types).toEqual([
        'run.created',
        'run.dispatched',
        'run.started',
        'run.log',
        'run.log',
        'run.log',
        'run.log',
        'run.log',
        'run.succeeded',
      ]);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    }
  }, 120_000);
});
