import { DeliverPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
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

  it('keeps two batches in hand at once, never with the same key in both, and acknowledges each batch after its own handler', async () => {
    const [a, b, c] = [
      '00000000-0000-4000-8000-00000000000a',
      '00000000-0000-4000-8000-00000000000b',
      '00000000-0000-4000-8000-00000000000c',
    ];
    // Stream order: A1 B1 A2 B2 A3 C1 C2 C3 C4 A4 B3 B4. Batches of four form only when full (the linger
    // is longer than the test), so beside the first batch only the Cs can be a batch: A3 waits for A1 and A2.
    const order = [a, b, a, b, a, c, c, c, c, a, b, b];
    const label = new Map([
      [a, 'A'],
      [b, 'B'],
      [c, 'C'],
    ]);
    // A stream of its own, so its sequences are 1 to 12.
    const own = new StreamNames(`${env.namespace}c`);
    await ensureStreams(jsm, own);
    const counts = new Map<string, number>();
    for (const run of order) {
      counts.set(run, (counts.get(run) ?? 0) + 1);
      await js.publish(own.runEvents('ws', run), new TextEncoder().encode(`${label.get(run)}${counts.get(run)}`));
    }
    const durable = `${env.namespace}_concurrent`;
    const consumer = new DurableConsumer(js, jsm, {
      stream: own.eventsStream,
      durable,
      filterSubject: own.allRunEvents(),
      ackWaitMs: 30_000,
      onError: () => undefined,
    });
    const batches: string[][] = [];
    let secondStarted: () => void = () => undefined;
    const second = new Promise<void>((resolve) => (secondStarted = resolve));
    let releaseFirst: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (releaseFirst = resolve));
    let secondSettled = false;
    await consumer.startBatches(
      async (messages: readonly JsMsg[]) => {
        const index = batches.push(messages.map((m) => new TextDecoder().decode(m.data))) - 1;
        if (index === 0) {
          // Held until the second batch is in hand beside it, and then until the test lets it go.
          await second;
          await first;
        } else if (index === 1) {
          secondStarted();
          setImmediate(() => (secondSettled = true));
        }
        return messages.map(() => 'ack' as const);
      },
      4,
      600_000,
      { concurrency: 2, keyOf: (m) => m.subject },
    );
    await eventually(() => Promise.resolve(secondSettled ? true : undefined), 10_000, 'a second batch handled while the first is in hand');
    expect(batches).toEqual([
      ['A1', 'B1', 'A2', 'B2'],
      ['C1', 'C2', 'C3', 'C4'],
    ]);
    // All twelve delivered, the second batch's four acknowledged; the first batch's four (in hand,
    // from sequence 1) and the four waiting behind it not.
    const held = await eventually(
      async () => {
        const info = await jsm.consumers.info(own.eventsStream, durable);
        return info.delivered.stream_seq === 12 && info.num_ack_pending === 8 ? info : undefined;
      },
      10_000,
      'twelve delivered and eight unacknowledged',
    );
    expect(held.ack_floor.stream_seq).toBe(0);
    releaseFirst();
    await eventually(() => Promise.resolve(batches.length === 3 ? true : undefined), 10_000, 'the third batch');
    expect(batches[2]).toEqual(['A3', 'A4', 'B3', 'B4']);
    await consumer.stop();
    const done = await eventually(
      async () => {
        const info = await jsm.consumers.info(own.eventsStream, durable);
        return info.num_ack_pending === 0 ? info : undefined;
      },
      10_000,
      'every message acknowledged',
    );
    expect({ floor: done.ack_floor.stream_seq, redelivered: done.num_redelivered }).toEqual({ floor: 12, redelivered: 0 });
  });

  it('starts a second batch beside one in hand only when it is full: a lone message waits for the first to settle', async () => {
    const own = new StreamNames(`${env.namespace}d`);
    await ensureStreams(jsm, own);
    const [a, d] = ['00000000-0000-4000-8000-0000000000aa', '00000000-0000-4000-8000-0000000000dd'];
    for (let i = 1; i <= 4; i++) {
      await js.publish(own.runEvents('ws', a), new TextEncoder().encode(`A${i}`));
    }
    const durable = `${env.namespace}_lone`;
    const consumer = new DurableConsumer(js, jsm, {
      stream: own.eventsStream,
      durable,
      filterSubject: own.allRunEvents(),
      ackWaitMs: 30_000,
      onError: () => undefined,
    });
    const batches: { readonly messages: string[]; readonly firstSettled: boolean }[] = [];
    let firstSettled = false;
    let releaseFirst: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (releaseFirst = resolve));
    await consumer.startBatches(
      async (messages: readonly JsMsg[]) => {
        const index = batches.push({ messages: messages.map((m) => new TextDecoder().decode(m.data)), firstSettled }) - 1;
        if (index === 0) {
          await first;
          firstSettled = true;
        }
        return messages.map(() => 'ack' as const);
      },
      4,
      0,
      { concurrency: 2, keyOf: (m) => m.subject },
    );
    await eventually(() => Promise.resolve(batches.length === 1 ? true : undefined), 10_000, 'the first batch in hand');
    await js.publish(own.runEvents('ws', d), new TextEncoder().encode('D1'));
    // D1 delivered while the first batch is held: with no linger, only the batch in hand keeps it waiting
    // (a batch of one free message is not full).
    await eventually(
      async () => ((await jsm.consumers.info(own.eventsStream, durable)).delivered.stream_seq === 5 ? true : undefined),
      10_000,
      'D1 delivered',
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(1);
    releaseFirst();
    await eventually(() => Promise.resolve(batches.length === 2 ? true : undefined), 10_000, 'the second batch');
    // With no linger the first batch was A1 alone; A2 to A4 waited for its key, D1 for it to settle.
    expect(batches).toEqual([
      { messages: ['A1'], firstSettled: false },
      { messages: ['A2', 'A3', 'A4', 'D1'], firstSettled: true },
    ]);
    await consumer.stop();
  });

  it('applies a changed ack wait to a consumer that exists, keeping the rest of its settings: a message a dead worker held comes back after the new wait', async () => {
    const durable = `${env.namespace}_ack_wait`;
    const subject = names.runEvents('ws', '00000000-0000-4000-8000-0000000000ac');
    const consumerWaiting = (ackWaitMs: number): DurableConsumer =>
      new DurableConsumer(js, jsm, { stream: names.eventsStream, durable, filterSubject: subject, ackWaitMs, onError: () => undefined });
    const take = (taken: string[]) => (m: JsMsg) => {
      taken.push(m.string());
      return Promise.resolve('ack' as const);
    };
    // The consumer as an earlier deployment made it: a ten-minute wait.
    const earlier = consumerWaiting(600_000);
    await earlier.start(take([]));
    await earlier.stop();
    const before = (await jsm.consumers.info(names.eventsStream, durable)).config;

    await js.publish(subject, new TextEncoder().encode('held'));
    // A worker that takes the message and dies: never acknowledged, so JetStream holds it for the ack wait.
    const held = await (await js.consumers.get(names.eventsStream, durable)).next({ expires: 5_000 });
    expect(held?.string()).toBe('held');

    const taken: string[] = [];
    const consumer = consumerWaiting(1_000);
    await consumer.start(take(taken));
    const after = (await jsm.consumers.info(names.eventsStream, durable)).config;
    expect(after).toEqual({ ...before, ack_wait: 1_000 * 1_000_000 });
    expect(after).toMatchObject({ filter_subject: subject, max_ack_pending: 1000, deliver_policy: DeliverPolicy.All });
    // Under the old wait this is ten minutes away.
    await eventually(() => Promise.resolve(taken.length === 1 ? true : undefined), 20_000, 'the held message redelivered');
    expect(taken).toEqual(['held']);
    await consumer.stop();
  });
});
