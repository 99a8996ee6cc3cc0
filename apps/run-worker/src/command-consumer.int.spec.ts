import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { connectNats, DurableConsumer, ensureStreams, RunCommandHandler, RunEventStore, StreamNames } from '@wrs/messaging';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { CommandConsumer } from './command-consumer';

const at = '2026-11-25T08:00:00.000Z';

/**
 * A rolling upgrade: an api of the previous version still publishes cancels as commands. The worker's
 * command consumer (same durable, same subjects as before) decides them, so no accepted cancel is lost.
 */
describe("the worker drains the cancel commands of a previous version's api (real JetStream)", () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let names: StreamNames;
  let store: RunEventStore;
  let consumer: DurableConsumer;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'legacy-cancel-test');
    names = new StreamNames(env.namespace);
    js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(js, jsm, names);
    const commands = new CommandConsumer(new RunCommandHandler(store));
    consumer = new DurableConsumer(js, jsm, {
      stream: names.commandsStream,
      durable: names.workerCommandsConsumer(),
      filterSubject: names.allCommands(),
      ackWaitMs: 30_000,
      onError: () => undefined,
    });
    await consumer.start((m) => commands.handle(m));
  });

  afterAll(async () => {
    await consumer.stop();
    await nc.close();
    await env.cleanup();
  });

  const running = async (runId: string): Promise<void> => {
    const events: RunEvent[] = [
      {
        type: 'run.created',
        data: { runId, workspaceId: 'ws', workload: { image: 'x' }, provider: 'auto', region: 'auto', idempotencyKey: runId, at },
      },
      { type: 'run.dispatched', data: { placement: { provider: 'simulator', region: 'r', reason: 'x', candidates: [] }, at } },
      { type: 'run.started', data: { at } },
    ];
    await store.append('ws', runId, events, 0, 'setup');
  };
  /** Exactly what the previous version's api published for a cancel. */
  const publishOldCancel = (runId: string, requestId: string) =>
    js.publish(
      names.cancelCommand('ws', runId),
      JSON.stringify({ type: 'CancelRun', runId, workspaceId: 'ws', requestedBy: 'old-api-user', now: at, requestId }),
      { msgID: `cancel:${runId}:${requestId}` },
    );
  const typesOf = async (runId: string): Promise<string[]> => (await store.read('ws', runId)).events.map((e) => e.event.type);

  it('a cancel an old api published is decided: the running run gets its cancel request, once', async () => {
    const runId = randomUUID();
    await running(runId);
    await publishOldCancel(runId, 'r1');
    await publishOldCancel(runId, 'r2');
    await eventually(
      async () => ((await typesOf(runId)).includes('run.cancel_requested') ? true : undefined),
      10_000,
      'the cancel request',
    );
    const other = randomUUID();
    await running(other);
    await publishOldCancel(other, 'r3');
    // The later command of another run is decided too, so both of the first run's were handled by then.
    await eventually(async () => ((await typesOf(other)).includes('run.cancel_requested') ? true : undefined), 10_000, 'the second run');
    expect(await typesOf(runId)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.cancel_requested']);
    const { events } = await store.read('ws', runId);
    expect(events.at(-1)?.event).toMatchObject({ data: { requestedBy: 'old-api-user' } });
  });

  it('an old create command (no api has published one since two versions) is dropped, not retried', async () => {
    const runId = randomUUID();
    await js.publish(`${env.namespace}.cmd.create.ws.${runId}`, JSON.stringify({ type: 'CreateRun', runId, workspaceId: 'ws' }));
    await eventually(
      async () => {
        const info = await (await jetstreamManager(nc)).consumers.info(names.commandsStream, names.workerCommandsConsumer());
        return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
      },
      10_000,
      'the command stream drained',
    );
    expect(await typesOf(runId)).toEqual([]);
  });
});
