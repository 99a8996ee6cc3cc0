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
   *
   * With `handling.concurrency` above 1, that many full batches are in hand at once (the next one is
   * taken while the previous one is still being written), but no two batches in hand hold messages of the same
   * key: a message whose key is in a batch in hand waits for the next batch, behind it those of its key
   * that arrived after it. So messages of one key are still handled one batch after another, in delivery
   * order, and each message is settled once its own batch's handler has answered.
   */
  async startBatches(
    handleBatch: (messages: readonly JsMsg[]) => Promise<readonly Disposition[]>,
    maxBatch: number,
    lingerMs = 0,
    handling: ConcurrentHandling = { concurrency: 1, keyOf: () => '' },
  ): Promise<void> {
    if (!Number.isInteger(handling.concurrency) || handling.concurrency < 1) {
      throw new RangeError(`the batch concurrency must be a positive integer, not ${handling.concurrency}`);
    }
    const waiting: { readonly message: JsMsg; readonly key: string; readonly at: number }[] = [];
    const keysInHand = new Set<string>();
    // How many waiting messages a batch may take now (their key is in no batch in hand): counted again
    // when a batch is taken or settled, one more with each message that arrives with a free key.
    let free = 0;
    const recount = (): void => {
      free = waiting.reduce((n, w) => (keysInHand.has(w.key) ? n : n + 1), 0);
    };
    let running = 0;
    let lingering = 0;
    let roomForMore: (() => void) | undefined;
    let changed: (() => void)[] = [];
    /** Wakes the batches lingering: what they may take has grown. */
    const notify = (): void => {
      const waking = changed;
      changed = [];
      waking.forEach((wake) => wake());
    };
    const drain = async (): Promise<void> => {
      while (free > 0) {
        const linger = lingerMs - (performance.now() - waiting.find((w) => !keysInHand.has(w.key))!.at);
        // A batch that is not full waits out its linger, and beside another batch in hand it waits until
        // that one is settled or it is full: only a backlog makes two transactions at once, not a quiet stream.
        if (free < maxBatch && (linger > 0 || keysInHand.size > 0)) {
          lingering++;
          await new Promise<void>((resolve) => {
            const timer = linger > 0 ? setTimeout(resolve, linger) : undefined;
            changed.push(() => {
              clearTimeout(timer);
              resolve();
            });
          });
          lingering--;
          continue;
        }
        // The oldest messages of free keys, up to maxBatch; the others keep their order.
        const batch: JsMsg[] = [];
        const keys = new Set<string>();
        let kept = 0;
        for (const w of waiting) {
          if (batch.length < maxBatch && !keysInHand.has(w.key)) {
            batch.push(w.message);
            keys.add(w.key);
          } else {
            waiting[kept++] = w;
          }
        }
        waiting.length = kept;
        keys.forEach((key) => keysInHand.add(key));
        recount();
        roomForMore?.();
        roomForMore = undefined;
        // Another batch may start beside this one: its keys are now in hand.
        schedule();
        try {
          await this.settleBatch(batch, handleBatch);
        } finally {
          keys.forEach((key) => keysInHand.delete(key));
          recount();
          notify();
        }
      }
    };
    const schedule = (): void => {
      // A batch lingering takes what arrives: a second one would only split it.
      if (running < handling.concurrency && lingering === 0 && free > 0) {
        running++;
        this.track(
          drain().finally(() => {
            running--;
            schedule();
          }),
        );
      }
    };
    await this.pump(async (message) => {
      const key = handling.keyOf(message);
      waiting.push({ message, key, at: performance.now() });
      if (!keysInHand.has(key) && ++free >= maxBatch) {
        notify();
      }
      schedule();
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
    await this.ensureConsumer(stream, durable, filterSubject, ackWaitMs * NANOS_PER_MS);
    const consumer = await this.js.consumers.get(stream, durable);
    this.messages = await consumer.consume({ max_messages: 256 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const message of messages) {
        await take(message);
      }
    })();
  }

  /** Makes the shared consumer, or gives the one there this process's ack wait. */
  private async ensureConsumer(stream: string, durable: string, filterSubject: string, ackWait: number): Promise<void> {
    let existing = await this.jsm.consumers.info(stream, durable).catch(() => null);
    if (!existing) {
      try {
        await this.jsm.consumers.add(stream, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: filterSubject,
          ack_wait: ackWait,
          max_ack_pending: 1000,
        });
        return;
      } catch (error) {
        // Another replica made it meanwhile with another wait: nats-server 2.10+ refuses the add (2.9, the
        // only one here, updates instead, so no test here reaches this).
        existing = await this.jsm.consumers.info(stream, durable).catch(() => {
          throw error;
        });
      }
    }
    if (existing.config.ack_wait !== ackWait) {
      // The consumer is shared and outlives a deployment: a changed setting is applied, not ignored.
      await this.jsm.consumers.update(stream, durable, { ack_wait: ackWait });
    }
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
