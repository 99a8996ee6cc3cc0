import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { StreamNames } from './names';
import { connectNats } from './nats-connection';
import { RunCommandHandler, type LoadedRun } from './run-command-handler';
import { RunEventStore } from './run-event-store';
import { ensureStreams } from './streams';

const at = '2026-11-25T08:00:00.000Z';
const placement = { provider: 'simulator', region: 'r', reason: 'x', candidates: [] };

/** A writer that appends (for real) right after the handler's next read: a decision made on a state that just moved on. */
class RacedStore extends RunEventStore {
  private raceAfterRead: (() => Promise<unknown>) | null = null;

  raceOnce(write: () => Promise<unknown>): void {
    this.raceAfterRead = write;
  }

  override async read(workspaceId: string, runId: string): ReturnType<RunEventStore['read']> {
    const read = await super.read(workspaceId, runId);
    const write = this.raceAfterRead;
    this.raceAfterRead = null;
    await write?.();
    return read;
  }
}

describe('RunCommandHandler.decideOnEvents against real JetStream', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RacedStore;
  let handler: RunCommandHandler;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'decide-on-events-test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RacedStore(jetstream(nc), jsm, names);
    handler = new RunCommandHandler(store);
  });

  afterAll(async () => {
    await nc.close();
    await env.cleanup();
  });

  const dispatched = async (runId: string): Promise<number> => {
    const events: RunEvent[] = [
      {
        type: 'run.created',
        data: { runId, workspaceId: 'ws', workload: { image: 'x' }, provider: 'auto', region: 'auto', idempotencyKey: runId, at },
      },
      { type: 'run.dispatched', data: { placement, at } },
    ];
    return store.append('ws', runId, events, 0, 'setup');
  };
  const cancel = { type: 'CancelRun' as const, requestedBy: 'u', now: at };
  /** The api's If-Match: the state version the client saw must still be the run's. */
  const ifMatch = (seen: number) => (run: LoadedRun) => {
    if (run.stateVersion !== seen) {
      throw new Error(`version conflict: ${run.stateVersion}`);
    }
  };

  it('a log line appended between the read and the append: decided again, and the precondition still holds', async () => {
    const runId = randomUUID();
    const seen = await dispatched(runId);
    store.raceOnce(() =>
      store.append('ws', runId, [{ type: 'run.log', data: { index: 0, stream: 'stdout', line: 'x', at } }], seen, 'race'),
    );
    const result = await handler.decideOnEvents('ws', runId, cancel, 'c1', ifMatch(seen));
    expect(result.appended.map((e) => e.type)).toEqual(['run.cancel_requested']);
    const { events, version } = await store.read('ws', runId);
    expect(events.map((e) => e.event.type)).toEqual(['run.created', 'run.dispatched', 'run.log', 'run.cancel_requested']);
    expect(result).toMatchObject({ version, stateVersion: version, state: { state: 'canceling', logLines: 1 } });
  });

  it('a state change appended between the read and the append: the precondition is asked again and refuses', async () => {
    const runId = randomUUID();
    const seen = await dispatched(runId);
    store.raceOnce(() => store.append('ws', runId, [{ type: 'run.started', data: { at } }], seen, 'race'));
    await expect(handler.decideOnEvents('ws', runId, cancel, 'c2', ifMatch(seen))).rejects.toThrow(/version conflict/);
    expect((await store.read('ws', runId)).events.map((e) => e.event.type)).toEqual(['run.created', 'run.dispatched', 'run.started']);
  });
});
