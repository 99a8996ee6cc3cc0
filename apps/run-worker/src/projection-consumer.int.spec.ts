import { randomUUID } from 'node:crypto';
import { DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { fold, type RunEvent, type RunView } from '@wrs/domain';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase, RunQueries } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { ProjectionConsumer } from './projection-consumer';

const at = '2026-11-22T10:00:00.000Z';
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

function lifecycle(runId: string): RunEvent[] {
  return [
    {
      type: 'run.created',
      data: { runId, workspaceId: 'ws', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at },
    },
    { type: 'run.dispatched', data: { placement, at } },
    { type: 'run.started', data: { at } },
    { type: 'run.succeeded', data: { exitCode: 0, at } },
  ];
}

describe('ProjectionConsumer against real JetStream and Postgres: holes in a run’s chain', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let names: StreamNames;
  let store: RunEventStore;
  let db: DataSource;
  let queries: RunQueries;
  const told: RunView[] = [];

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    names = new StreamNames(env.namespace);
    jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    await migrate(env.database);
    db = await openDatabase({ ...env.database, poolSize: 4 });
    queries = new RunQueries(db);
  });

  afterAll(async () => {
    await db.destroy();
    await nc.close();
    await env.cleanup();
  });

  /** Appends a run's lifecycle and returns its messages as a consumer receives them. */
  async function appendRun(): Promise<{ runId: string; messages: JsMsg[] }> {
    const runId = randomUUID();
    let version = 0;
    for (const [i, event] of lifecycle(runId).entries()) {
      version = await store.append('ws', runId, [event], version, `m${i}`);
    }
    const consumer = await jetstream(nc).consumers.get(names.eventsStream, {
      filter_subjects: names.runEvents('ws', runId),
      deliver_policy: DeliverPolicy.All,
    });
    const messages: JsMsg[] = [];
    const iterator = await consumer.consume();
    for await (const m of iterator) {
      messages.push(m);
      if (messages.length === 4) {
        break;
      }
    }
    await iterator.close();
    return { runId, messages };
  }

  it('reads an event whose delivery was lost from JetStream and folds the whole chain at once', async () => {
    const { runId, messages } = await appendRun();
    const consumer = new ProjectionConsumer(new RunProjection(db), (run) => told.push(run), store);
    const [created, dispatched, , succeeded] = messages;
    // run.started was delivered to a connection that died: JetStream would send it again in 30 s.
    expect(await consumer.handleBatch([created!, dispatched!, succeeded!])).toEqual(['ack', 'ack', 'ack']);
    expect(await queries.find('ws', runId)).toEqual({
      ...fold(lifecycle(runId)),
      terminal: true,
      version: succeeded!.seq,
      stateVersion: succeeded!.seq,
    });
    expect(told.filter((r) => r.runId === runId).at(-1)).toMatchObject({ state: 'succeeded', version: succeeded!.seq });
  });

  it('folds across an event the stream no longer holds (retention), which no delivery would fill', async () => {
    const { runId, messages } = await appendRun();
    const consumer = new ProjectionConsumer(new RunProjection(db), () => undefined, store);
    const [created, dispatched, started, succeeded] = messages;
    await jsm.streams.deleteMessage(names.eventsStream, started!.seq);
    await consumer.handleBatch([created!, dispatched!, succeeded!]);
    expect(await queries.find('ws', runId)).toMatchObject({ state: 'succeeded', version: succeeded!.seq, startedAt: null });
  });

  it('leaves the hole to redelivery when JetStream cannot be read, and still acknowledges the batch it committed', async () => {
    const { runId, messages } = await appendRun();
    const unreachable = await connectNats(env.natsUrl, 'test-closed');
    const closedStore = new RunEventStore(jetstream(unreachable), await jetstreamManager(unreachable), names);
    await unreachable.close();
    const errors: { runId: string; seq: number }[] = [];
    const consumer = new ProjectionConsumer(
      new RunProjection(db),
      () => undefined,
      closedStore,
      (_error, hole) => errors.push(hole),
    );
    const [created, dispatched, started, succeeded] = messages;
    expect(await consumer.handleBatch([created!, dispatched!, succeeded!])).toEqual(['ack', 'ack', 'ack']);
    expect(errors).toEqual([{ runId, seq: started!.seq }]);
    expect(await queries.find('ws', runId)).toMatchObject({ state: 'starting', version: dispatched!.seq });
    // The redelivery of run.started closes the hole.
    await consumer.handleBatch([started!]);
    expect(await queries.find('ws', runId)).toMatchObject({ state: 'succeeded', version: succeeded!.seq });
  });
});
