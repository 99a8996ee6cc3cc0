import {
  AckPolicy,
  DeliverPolicy,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { KeyedWorkQueue } from './keyed-work-queue';

const NANOS_PER_MS = 1_000_000;

export type Disposition = 'ack' | { readonly retryAfterMs: number } | 'drop';

export interface DurableConsumerOptions {
  readonly stream: string;
  readonly durable: string;
  readonly filterSubject: string;
  /** How long a message may be in hand before JetStream redelivers it. */
  readonly ackWaitMs: number;
  readonly onError: (error: unknown, message: JsMsg) => void;
}

export interface ConcurrentHandling {
  /** How many messages are handled at once by this process. */
  readonly concurrency: number;
  /** Messages with the same key are handled one after another, in delivery order (e.g. a run id). */
  readonly keyOf: (message: JsMsg) => string;
}

/** How long to wait before a failed message is delivered again: grows with its delivery count. */
export function backoffFor(message: JsMsg): number {
  return Math.min(5000, 100 * 2 ** Math.min(message.info.deliveryCount, 6));
}

/**
 * A durable pull consumer shared by every replica of a service, so JetStream spreads the messages.
 * A message is acknowledged only after its handler succeeded (at-least-once; handlers are idempotent).
 * Several messages are handled at once, up to a bound, so a backlog waits in JetStream, not in memory.
 */
export class DurableConsumer {
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly inHand = new Set<Promise<void>>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: DurableConsumerOptions,
  ) {}

  /** Handles each message on its own, up to `concurrency` at once, in order per key. */
  async start(
    handle: (message: JsMsg) => Promise<Disposition>,
    handling: ConcurrentHandling = { concurrency: 1, keyOf: () => '' },
  ): Promise<void> {
    const queue = new KeyedWorkQueue(handling.concurrency);
    await this.pump(async (message) => {
      await queue.whenBelowLimit();
      this.track(queue.push(handling.keyOf(message), () => this.settle(message, () => handle(message))));
    });
  }

  /**
   * Handles messages in batches of up to `maxBatch`: whatever arrived while the previous batch was in
   * hand. A smaller batch waits until its oldest message is `lingerMs` old, so a quiet stream still makes
   * batches of several messages. The handler answers one disposition per message, in the same order.
   */
  async startBatches(
    handleBatch: (messages: readonly JsMsg[]) => Promise<readonly Disposition[]>,
    maxBatch: number,
    lingerMs = 0,
  ): Promise<void> {
    const waiting: JsMsg[] = [];
    const arrivedAt: number[] = [];
    let running: Promise<void> | undefined;
    let roomForMore: (() => void) | undefined;
    let batchFull: (() => void) | undefined;
    const drain = async (): Promise<void> => {
      while (waiting.length > 0) {
        const linger = lingerMs - (performance.now() - arrivedAt[0]!);
        if (waiting.length < maxBatch && linger > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, linger);
            batchFull = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          batchFull = undefined;
          continue;
        }
        const batch = waiting.splice(0, maxBatch);
        arrivedAt.splice(0, batch.length);
        roomForMore?.();
        roomForMore = undefined;
        await this.settleBatch(batch, handleBatch);
      }
      running = undefined;
    };
    await this.pump(async (message) => {
      waiting.push(message);
      arrivedAt.push(performance.now());
      if (waiting.length >= maxBatch) {
        batchFull?.();
      }
      if (!running) {
        running = drain();
        this.track(running);
      }
      if (waiting.length >= maxBatch * 2) {
        await new Promise<void>((resolve) => (roomForMore = resolve));
      }
    });
  }

  /** Stops taking messages and waits for those in hand: nothing is half-handled at shutdown. */
  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
    while (this.inHand.size > 0) {
      await Promise.all([...this.inHand]);
    }
  }

  private async pump(take: (message: JsMsg) => Promise<void>): Promise<void> {
    const { stream, durable, filterSubject, ackWaitMs } = this.options;
    const existing = await this.jsm.consumers.info(stream, durable).catch(() => null);
    if (!existing) {
      await this.jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: filterSubject,
        ack_wait: ackWaitMs * NANOS_PER_MS,
        max_ack_pending: 1000,
      });
    }
    const consumer = await this.js.consumers.get(stream, durable);
    this.messages = await consumer.consume({ max_messages: 256 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const message of messages) {
        await take(message);
      }
    })();
  }

  private track(work: Promise<void>): void {
    this.inHand.add(work);
    void work.finally(() => this.inHand.delete(work));
  }

  private async settle(message: JsMsg, handle: () => Promise<Disposition>): Promise<void> {
    let disposition: Disposition;
    try {
      disposition = await handle();
    } catch (error) {
      this.options.onError(error, message);
      disposition = { retryAfterMs: backoffFor(message) };
    }
    apply(message, disposition);
  }

  private async settleBatch(batch: JsMsg[], handleBatch: (messages: readonly JsMsg[]) => Promise<readonly Disposition[]>): Promise<void> {
    let dispositions: readonly Disposition[];
    try {
      dispositions = await handleBatch(batch);
    } catch (error) {
      for (const message of batch) {
        this.options.onError(error, message);
      }
      dispositions = batch.map((message) => ({ retryAfterMs: backoffFor(message) }));
    }
    batch.forEach((message, i) => apply(message, dispositions[i] ?? { retryAfterMs: backoffFor(message) }));
  }
}

function apply(message: JsMsg, disposition: Disposition): void {
  if (disposition === 'ack') {
    message.ack();
  } else if (disposition === 'drop') {
    message.term();
  } else {
    message.nak(disposition.retryAfterMs);
  }
}
