import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent, RunView } from '@wrs/domain';
import { connectNats, ensureStreams, RunEndings, RunEventStore, StreamNames } from '@wrs/messaging';
import { isolatedEnvironment, settlesWithin, type IsolatedEnvironment } from '@wrs/testing';
import { RunWaits } from './run-waits';
import { UnprojectedRuns } from './unprojected-runs';

const at = '2026-11-27T08:00:00.000Z';
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

/**
 * Its first read answered before the run's end was stored: what a read meets when the end is published
 * just before the run's subscription reaches the server and stored just after the read is answered (a
 * race no test can time; here the read is made to come first).
 */
class FirstReadBeforeTheEnd extends UnprojectedRuns {
  private first: RunView | null | undefined;

  constructor(store: RunEventStore, before: RunView | null) {
    super(store);
    this.first = before;
  }

  override async find(workspaceId: string, runId: string): Promise<RunView | null> {
    if (this.first !== undefined) {
      const before = this.first;
      this.first = undefined;
      return before;
    }
    return super.find(workspaceId, runId);
  }
}

describe('Prefer: wait when the run ended in the moment its wait began (real NATS)', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RunEventStore;
  let endings: RunEndings;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    const names = new StreamNames(env.namespace);
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

  it('an end in neither the first read nor the subscription is found by the read a moment later, not after the full wait', async () => {
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
    const running = await new UnprojectedRuns(store).find('ws-waits', runId);
    expect(running).toMatchObject({ state: 'running', terminal: false });
    // Ended before the wait subscribes, so its subscription never sees the end.
    await store.append(
      'ws-waits',
      runId,
      [{ type: 'run.succeeded', data: { exitCode: 0, at } }],
      await store.version('ws-waits', runId),
      randomUUID(),
    );
    const waits = new RunWaits(endings, new FirstReadBeforeTheEnd(store, running));
    const answer = await settlesWithin(10_000, waits.settled(running!, 60, new AbortController().signal));
    expect(answer).toMatchObject({ runId, state: 'succeeded', terminal: true });
    expect(endings.waiting).toBe(0);
    expect(endings.subscriptions).toBe(0);
  });
});
