import { randomUUID } from 'node:crypto';
import { EventSource } from 'eventsource';
import { RUN_EVENT_TYPES } from '@wrs/domain';
import { startStack, type StackFixture } from './stack-fixture';

interface Received {
  readonly id: string;
  readonly type: string;
}

/**
 * A WHATWG-conforming client nobody here wrote (the `eventsource` package: it reconnects by itself,
 * sending Last-Event-ID) follows a run while relays are killed under it.
 */
describe('the event stream with a real EventSource client, across relay kills and replicas', () => {
  let f: StackFixture;
  let token: string;

  beforeAll(async () => {
    f = await startStack(['ws-es'], {}, { 'stream-relay': 2 });
    token = f.token('ws-es');
  });

  afterAll(async () => {
    await f?.stop();
  });

  async function createRun(lines: number, durationMs: number): Promise<string> {
    const res = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: {
        workload: { image: 'busybox', env: { SIM_LOG_LINES: String(lines), SIM_DURATION_MS: String(durationMs) } },
        provider: 'auto',
        region: 'auto',
      },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  /** Follows until the server says the run is over (the 204 after the terminal event closes it). */
  function follow(runId: string, onEvent: (received: Received[]) => void = () => undefined): Promise<Received[]> {
    const received: Received[] = [];
    const source = new EventSource(`${f.stack.baseUrl}/runs/${runId}/events`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` } }),
    });
    for (const type of RUN_EVENT_TYPES) {
      source.addEventListener(type, (event) => {
        received.push({ id: event.lastEventId, type });
        onEvent(received);
      });
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        source.close();
        reject(new Error(`still open after 40 s; received ${JSON.stringify(received.map((r) => r.type))}`));
      }, 40_000);
      source.addEventListener('error', () => {
        if (source.readyState === EventSource.CLOSED) {
          clearTimeout(timer);
          resolve(received);
        }
      });
    });
  }

  function expectExactlyOnceInOrder(received: Received[], lines: number): void {
    const ids = received.map((r) => Number(r.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(received.map((r) => r.type)).toEqual([
      'run.created',
      'run.dispatched',
      'run.started',
      ...Array.from({ length: lines }, () => 'run.log'),
      'run.succeeded',
    ]);
  }

  it('receives every event exactly once, in order, while the relays are killed and restarted twice', async () => {
    const lines = 40;
    const runId = await createRun(lines, 4000);
    let kills = 0;
    const received = await follow(runId, (soFar) => {
      const logs = soFar.filter((r) => r.type === 'run.log').length;
      if ((logs === 8 && kills === 0) || (logs === 24 && kills === 1)) {
        kills++;
        // Every relay goes down: the client's reconnects fail until one is back.
        void Promise.all(f.stack.instances('stream-relay').map((name) => f.stack.restart(name)));
      }
    });
    expect(kills).toBe(2);
    expectExactlyOnceInOrder(received, lines);
  });

  it('a relay sent SIGTERM ends its streams at once and exits cleanly; the client resumes on the other', async () => {
    const runId = await createRun(20, 3000);
    const relays = f.stack.instances('stream-relay');
    // Open one stream on each replica (the gateway alternates), then stop the first gracefully.
    const follows = relays.map(() => follow(runId));
    await new Promise((r) => setTimeout(r, 800));
    const child = f.stack.processes.get(relays[0]!)!;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const received of await Promise.all(follows)) {
      expectExactlyOnceInOrder(received, 20);
    }
    f.stack.startService(relays[0]!);
    await f.stack.waitUntilServing(relays[0]!);
  });

  it('resumes on the other replica when the one it was on dies', async () => {
    const lines = 30;
    const runId = await createRun(lines, 3000);
    const [first, second] = f.stack.instances('stream-relay') as [string, string];
    let step = 0;
    // Kill one replica, bring it back, then kill the other: whichever the stream is on, at least one
    // kill drops it, and its reconnect lands on the replica that is up.
    const received = await follow(runId, (soFar) => {
      const logs = soFar.filter((r) => r.type === 'run.log').length;
      if (logs === 8 && step === 0) {
        step = 1;
        void f.stack.kill(first).then(() => {
          f.stack.startService(first);
          return f.stack.waitUntilServing(first).then(() => (step = 2));
        });
      } else if (logs >= 20 && step === 2) {
        step = 3;
        void f.stack.kill(second);
      }
    });
    expect(step).toBe(3);
    expectExactlyOnceInOrder(received, lines);
    f.stack.startService(second);
    await f.stack.waitUntilServing(second);
  });
});
