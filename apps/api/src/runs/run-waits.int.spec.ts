import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent, RunView } from '@wrs/domain';
import { connectNats, decodeRunEvent, ensureStreams, RunEndings, RunEventStore, StreamNames } from '@wrs/messaging';
import { eventually, isolatedEnvironment, settlesWithin, type IsolatedEnvironment } from '@wrs/testing';
import { RunWaits } from './run-waits';
import { UnprojectedRuns } from './unprojected-runs';

const at = '2026-11-27T08:00:00.000Z';
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

/**
 * Reads that lag the stream as a read can: the first `staleFinds` answer `before` (what a read meets when
 * the run's end is published just before its subscription reaches the server, or heard before the stream
 * stored it: races no test can time, so here the reads are made to come first), and the first
 * `failedLooks` looks at its last event fail as over a reconnect.
 */
class LaggingReads extends UnprojectedRuns {
  constructor(
    store: RunEventStore,
    private readonly before: RunView | null,
    private staleFinds: number,
    private failedLooks = 0,
  ) {
    super(store);
  }

  finds = 0;

  override async find(workspaceId: string, runId: string): Promise<RunView | null> {
    this.finds++;
    if (this.staleFinds > 0) {
      this.staleFinds--;
      return this.before;
    }
    return super.find(workspaceId, runId);
  }

  get looksLeftToFail(): number {
    return this.failedLooks;
  }

  looks = 0;

  override async hasEnded(workspaceId: string, runId: string): Promise<boolean> {
    this.looks++;
    if (this.failedLooks > 0) {
      this.failedLooks--;
      throw new Error('timed out');
    }
    return super.hasEnded(workspaceId, runId);
  }
}

describe('Prefer: wait when the run ended in the moment its wait began (real NATS)', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RunEventStore;
  let endings: RunEndings;
  let names: StreamNames;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    names = new StreamNames(env.namespace);
    nc = await connectNats(env.natsUrl, 'run-waits-test');
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    endings = new RunEndings(nc, names);
    endings.start();
  });

  afterAll(async () => {
    await endings.stop();
    await nc.close();
    await env.cleanup();
  });

  const running = async (): Promise<RunView> => {
    const runId = randomUUID();
    const events: RunEvent[] = [
      {
        type: 'run.created',
        data: {
          runId,
          workspaceId: 'ws-waits',
          workload: { image: 'busybox' },
          provider: 'auto',
          region: 'auto',
          idempotencyKey: runId,
          at,
        },
      },
      { type: 'run.dispatched', data: { placement, at } },
      { type: 'run.started', data: { at } },
    ];
    await store.append('ws-waits', runId, events, 0, randomUUID());
    const view = await new UnprojectedRuns(store).find('ws-waits', runId);
    expect(view).toMatchObject({ state: 'running', terminal: false });
    return view!;
  };
  const end = async (runId: string): Promise<void> => {
    await store.append(
      'ws-waits',
      runId,
      [{ type: 'run.succeeded', data: { exitCode: 0, at } }],
      await store.version('ws-waits', runId),
      randomUUID(),
    );
  };
  const ongoing = () => new AbortController().signal;

  it('an end in neither the first read nor the subscription is found by the wait looking itself, not after the full wait', async () => {
    const run = await running();
    // Ended before the wait subscribes, so its subscription never hears the end; its first read lags.
    await end(run.runId);
    const waits = new RunWaits(endings, new LaggingReads(store, run, 1));
    const answer = await settlesWithin(10_000, waits.settled(run, 60, ongoing()));
    expect(answer).toMatchObject({ runId: run.runId, state: 'succeeded', terminal: true });
    expect(endings.waiting).toBe(0);
    expect(endings.subscriptions).toBe(0);
  });

  it('woken by the end before the stream shows it, the wait reads until it does: never a run that has not ended', async () => {
    const run = await running();
    // The first read and the two after the wake-up do not show the end yet.
    const reads = new LaggingReads(store, run, 3);
    const listened = jest.spyOn(endings, 'wait');
    const answer = settlesWithin(10_000, new RunWaits(endings, reads).settled(run, 60, ongoing()));
    await eventually(() => Promise.resolve(endings.waiting === 1 || undefined), 10_000, 'the wait to begin');
    await end(run.runId);
    expect(await answer).toMatchObject({ runId: run.runId, state: 'succeeded', terminal: true });
    expect(reads.finds).toBe(4);
    expect(listened).toHaveBeenCalledTimes(2); // heard the end, not only found it by looking
    listened.mockRestore();
  });

  it('a look that fails leaves the wait waiting, and the end still answers it', async () => {
    const run = await running();
    const reads = new LaggingReads(store, run, 0, 1);
    const answer = settlesWithin(10_000, new RunWaits(endings, reads).settled(run, 60, ongoing()));
    await eventually(() => Promise.resolve(reads.looksLeftToFail === 0 || undefined), 10_000, 'the first look, which fails');
    await end(run.runId);
    expect(await answer).toMatchObject({ runId: run.runId, state: 'succeeded', terminal: true });
  });

  it('an end heard but refused by the stream (an append that lost a race) does not end the wait: the real end does', async () => {
    const run = await running();
    const reads = new LaggingReads(store, run, 0);
    // Counts the waits registered (a second one means the wait heard an end); each still goes to the real RunEndings.
    const listened = jest.spyOn(endings, 'wait');
    const answer = settlesWithin(15_000, new RunWaits(endings, reads).settled(run, 60, ongoing()));
    await eventually(() => Promise.resolve(endings.waiting === 1 || undefined), 10_000, 'the wait to begin');
    // Published on the run's subject, so its subscription hears it, but refused: it expects an older last event.
    const heard = nc.subscribe(names.runEvents('ws-waits', run.runId), { max: 1 });
    await nc.flush();
    await expect(
      store.append(
        'ws-waits',
        run.runId,
        [{ type: 'run.failed', data: { failure: { code: 'provider_error', message: 'x' }, exitCode: null, at } }],
        1,
        randomUUID(),
      ),
    ).rejects.toThrow();
    for await (const message of heard) {
      expect(decodeRunEvent(message.data).event.type).toBe('run.failed'); // heard, though never stored
    }
    // The hint's six quick looks (1.55 s in all) find no end stored; the wait listens again and reads
    // nothing more than its first read.
    await eventually(() => Promise.resolve(reads.looks >= 6 || undefined), 10_000, "the hint's quick looks");
    expect(listened).toHaveBeenCalledTimes(2);
    listened.mockRestore();
    expect(endings.waiting).toBe(1);
    expect(reads.finds).toBe(1);
    await end(run.runId);
    expect(await answer).toMatchObject({ runId: run.runId, state: 'succeeded', terminal: true });
  });

  it('a client gone before the wait begins is answered at once, without a subscription', async () => {
    const run = await running();
    const gone = new AbortController();
    gone.abort();
    const reads = new LaggingReads(store, run, 0);
    expect(await settlesWithin(1_000, new RunWaits(endings, reads).settled(run, 60, gone.signal))).toBe(run);
    expect(reads.finds).toBe(0);
    expect(endings.subscriptions).toBe(0);
  });
});
