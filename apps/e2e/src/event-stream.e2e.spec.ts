import { randomUUID } from 'node:crypto';
import { EventSource } from 'eventsource';
import { RUN_EVENT_TYPES } from '@wrs/domain';
import { contractCheckedFetch, patience, readSse } from '@wrs/testing';
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
    // Both relays restart at once below: the gateway holds a reconnect until one is back, however long
    // that takes this machine (CI once took more than the default 5 s, and the 503 ended the EventSource).
    // (Below the gateway's 120 s idle time-out, which the configuration requires.)
    const grace = Math.min(patience(30_000), 100_000);
    f = await startStack(['ws-es'], { GATEWAY_RESTART_GRACE_MS: String(grace) }, { 'stream-relay': 2 });
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

  /**
   * A run that writes a log line every 100 ms until it is canceled. The kills below happen at points
   * of the client's progress, and a relay takes as long to restart as the machine lets it: a run of a
   * fixed length could end before the last kill came (on a loaded machine it did), so the test ends
   * this one itself, once every kill has happened and the client has read past it.
   */
  async function createEndlessRun(): Promise<string> {
    return createRun(6000, 600_000);
  }

  async function cancel(runId: string): Promise<void> {
    const res = await f.client.call('POST /runs/{runId}:cancel', `/runs/${runId}:cancel`, { token });
    expect(res.status).toBe(202);
  }

  /** Follows until the server says the run is over (the 204 after the terminal event closes it). */
  function follow(runId: string, onEvent: (received: Received[]) => void = () => undefined): Promise<Received[]> {
    const received: Received[] = [];
    // Every connection and reconnection the client makes is held to the contract (status, headers, type).
    const checked = contractCheckedFetch(f.stack.baseUrl);
    const source = new EventSource(`${f.stack.baseUrl}/runs/${runId}/events`, {
      fetch: (input, init) =>
        checked.fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` } }),
    });
    for (const type of RUN_EVENT_TYPES) {
      source.addEventListener(type, (event) => {
        received.push({ id: event.lastEventId, type });
        onEvent(received);
      });
    }
    // Two rounds of relay restarts happen while it is open: how long they take is the machine's.
    const timeoutMs = patience(40_000);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        source.close();
        reject(new Error(`still open after ${timeoutMs} ms; received ${JSON.stringify(received.map((r) => r.type))}`));
      }, timeoutMs);
      source.addEventListener('error', () => {
        if (source.readyState === EventSource.CLOSED) {
          clearTimeout(timer);
          if (checked.violations.length > 0) {
            reject(new Error(`answers outside the contract: ${checked.violations.join('\n')}`));
          }
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

  /**
   * What a client that was cut off got, against one quiet read of the finished run: every event the
   * run has, exactly once, in order, and nothing else.
   */
  async function expectSameAsQuietRead(runId: string, received: Received[]): Promise<void> {
    const quiet = await readSse(`${f.stack.baseUrl}/runs/${runId}/events`, { authorization: `Bearer ${token}` });
    expect(quiet.endedByServer).toBe(true);
    expect(received).toEqual(quiet.events.map((e) => ({ id: e.id, type: e.event })));
    const types = received.map((r) => r.type);
    expect(types.slice(0, 3)).toEqual(['run.created', 'run.dispatched', 'run.started']);
    expect(types.at(-1)).toBe('run.canceled');
  }

  /**
   * Runs `step` once the client has read `lines` more log lines than it had when the previous step
   * ended; each step starts only after the one before it has finished (a relay is never killed while
   * it is still starting from the last kill). The last step cancels the run, which ends the stream;
   * a step that fails cancels it too, so the test ends and reports that failure.
   */
  function stepsAtProgress(runId: string, lines: number, steps: Array<() => Promise<unknown>>) {
    let next = 0;
    let busy = false;
    let mark = 0;
    let logs = 0;
    const done: Promise<unknown>[] = [];
    const onEvent = (soFar: Received[]): void => {
      logs = soFar.filter((r) => r.type === 'run.log').length;
      if (busy || next > steps.length || logs < mark + lines) {
        return;
      }
      const step = next < steps.length ? steps[next]! : () => cancel(runId);
      next++;
      busy = true;
      const taken = step().then(
        () => {
          busy = false;
          mark = logs;
        },
        async (error: unknown) => {
          await cancel(runId);
          throw error;
        },
      );
      taken.catch(() => undefined); // reported by finished(), once the stream has ended
      done.push(taken);
    };
    return { onEvent, finished: () => Promise.all(done), stepsTaken: () => next };
  }

  it('receives every event exactly once, in order, while the relays are killed and restarted twice', async () => {
    const runId = await createEndlessRun();
    // Every relay goes down: the client's reconnects fail until one is back.
    const restartAll = () => Promise.all(f.stack.instances('stream-relay').map((name) => f.stack.restart(name)));
    const steps = stepsAtProgress(runId, 8, [restartAll, restartAll]);
    const received = await follow(runId, steps.onEvent);
    await steps.finished();
    expect(steps.stepsTaken()).toBe(3); // two restarts, then the cancel
    await expectSameAsQuietRead(runId, received);
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
    const runId = await createEndlessRun();
    const [first, second] = f.stack.instances('stream-relay') as [string, string];
    // Kill one replica, bring it back, then kill the other: whichever the stream is on, at least one
    // kill drops it, and its reconnect lands on the replica that is up.
    const steps = stepsAtProgress(runId, 8, [() => f.stack.restart(first), () => f.stack.kill(second)]);
    const received = await follow(runId, steps.onEvent);
    await steps.finished();
    expect(steps.stepsTaken()).toBe(3);
    await expectSameAsQuietRead(runId, received);
    f.stack.startService(second);
    await f.stack.waitUntilServing(second);
  });
});
