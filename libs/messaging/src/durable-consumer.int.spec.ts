import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { DurableConsumer } from './durable-consumer';
import { connectNats } from './nats-connection';
import { StreamNames } from './names';
import { ensureStreams } from './streams';

describe('DurableConsumer batches against real JetStream', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let names: StreamNames;
  let js: JetStreamClient;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    names = new StreamNames(env.namespace);
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
  });

  afterAll(async () => {
    await nc.close();
    await env.cleanup();
  });

  /** The batches (size, ms after the first publish) a consumer of `run` makes of five messages published 20 ms apart. */
  async function batchesOf(run: string, maxBatch: number, lingerMs: number): Promise<{ size: number; atMs: number }[]> {
    const consumer = new DurableConsumer(js, jsm, {
      stream: names.eventsStream,
      durable: `${env.namespace}_${run}`,
      filterSubject: names.runEvents('ws', run),
      ackWaitMs: 30_000,
      onError: () => undefined,
    });
    const batches: { size: number; atMs: number }[] = [];
    let firstPublishAt = 0;
    await consumer.startBatches(
      (messages: readonly JsMsg[]) => {
        batches.push({ size: messages.length, atMs: performance.now() - firstPublishAt });
        return Promise.resolve(messages.map(() => 'ack' as const));
      },
      maxBatch,
      lingerMs,
    );
    firstPublishAt = performance.now();
    for (let i = 0; i < 5; i++) {
      await js.publish(names.runEvents('ws', run), new TextEncoder().encode(`m${i}`));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await eventually(
      () => Promise.resolve(batches.reduce((sum, b) => sum + b.size, 0) === 5 ? true : undefined),
      10_000,
      'the five messages handled',
    );
    await consumer.stop();
    return batches;
  }

  it('takes each message of a quiet stream at once without a linger, and gathers them in one batch with one', async () => {
    expect((await batchesOf('00000000-0000-4000-8000-000000000001', 256, 0)).map((b) => b.size)).toEqual([1, 1, 1, 1, 1]);
    expect((await batchesOf('00000000-0000-4000-8000-000000000002', 256, 1_000)).map((b) => b.size)).toEqual([5]);
  });

  it('does not linger once a batch is full', async () => {
    const batches = await batchesOf('00000000-0000-4000-8000-000000000003', 2, 3_000);
    expect(batches.map((b) => b.size)).toEqual([2, 2, 1]);
    expect(batches[1]!.atMs).toBeLessThan(1_500);
  });
});
