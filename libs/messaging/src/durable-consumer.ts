import {
  AckPolicy,
  DeliverPolicy,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';

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

/**
 * A shared durable pull consumer: every replica of a service binds to the same durable, so JetStream
 * spreads messages over them, and a message is acknowledged only after its handler succeeded; if the
 * process dies first, JetStream delivers it again (at-least-once, made safe by idempotent handlers).
 */
export class DurableConsumer {
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: DurableConsumerOptions,
  ) {}

  async start(handle: (message: JsMsg) => Promise<Disposition>): Promise<void> {
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
    this.messages = await consumer.consume({ max_messages: 64 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const message of messages) {
        await this.dispatch(message, handle);
      }
    })();
  }

  /** Stops taking messages and waits for the one in hand: nothing is half-handled at shutdown. */
  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
  }

  private async dispatch(message: JsMsg, handle: (message: JsMsg) => Promise<Disposition>): Promise<void> {
    let disposition: Disposition;
    try {
      disposition = await handle(message);
    } catch (error) {
      this.options.onError(error, message);
      disposition = { retryAfterMs: Math.min(5000, 100 * 2 ** Math.min(message.info.deliveryCount, 6)) };
    }
    if (disposition === 'ack') {
      message.ack();
    } else if (disposition === 'drop') {
      message.term();
    } else {
      message.nak(disposition.retryAfterMs);
    }
  }
}
