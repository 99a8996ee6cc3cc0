import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { StreamNames } from './names';
import type { MsgHdrs, NatsConnection } from '@nats-io/nats-core';
import { decodeRunEvent, previousOf, type RunEventEnvelope } from './run-event-codec';

export interface FeedEvent {
  readonly seq: number;
  /** The sequence of the run's previous event, when the message says (all events appended here do). */
  readonly previous: number | null;
  readonly envelope: RunEventEnvelope;
  /** The stored JSON, sent as it is. */
  readonly json: string;
  /** The message's headers: the trace context and request id of what decided the event. */
  readonly headers?: MsgHdrs | undefined;
}

export interface Subscription extends AsyncIterable<FeedEvent> {
  close(): Promise<void>;
}

/**
 * Reads a run's events for the stream-relay: an ordered consumer filtered to the run's subject,
 * starting right after the last id the client has. Stateless: any replica can serve any resume.
 */
export class RunEventFeed {
  private readonly open = new Set<Subscription>();

  /**
   * With the connection, every open subscription ends when it reconnects: an ordered consumer that
   * lived through a NATS restart can stop delivering for good (found by the chaos run: streams kept
   * sending heartbeats and no event), while one made after the reconnect works. The relay then ends
   * those streams and their clients resume exactly with Last-Event-ID on a fresh consumer.
   */
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
    connection?: NatsConnection,
  ) {
    if (connection) {
      void this.endStreamsOnReconnect(connection);
    }
  }

  private async endStreamsOnReconnect(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'reconnect') {
        await Promise.all([...this.open].map((subscription) => subscription.close()));
      }
    }
  }

  async last(workspaceId: string, runId: string): Promise<FeedEvent | null> {
    const message = await this.jsm.streams.getMessage(this.names.eventsStream, {
      last_by_subj: this.names.runEvents(workspaceId, runId),
    });
    return message
      ? { seq: message.seq, previous: previousOf(message.header), envelope: decodeRunEvent(message.data).envelope, json: message.string() }
      : null;
  }

  /** A run that has no event yet exists if its create command was accepted. */
  async accepted(workspaceId: string, runId: string): Promise<boolean> {
    const message = await this.jsm.streams.getMessage(this.names.commandsStream, {
      last_by_subj: this.names.createCommand(workspaceId, runId),
    });
    return message !== null;
  }

  async follow(workspaceId: string, runId: string, afterSeq: number): Promise<Subscription> {
    const consumer = await this.js.consumers.get(this.names.eventsStream, {
      filter_subjects: this.names.runEvents(workspaceId, runId),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: afterSeq + 1,
    });
    const messages: ConsumerMessages = await consumer.consume({ max_messages: 256 });
    const open = this.open;
    const subscription: Subscription = {
      close: async () => {
        open.delete(subscription);
        await messages.close();
      },
      async *[Symbol.asyncIterator]() {
        for await (const m of messages) {
          const json = m.string();
          yield { seq: m.seq, previous: previousOf(m.headers), envelope: decodeRunEvent(m.data).envelope, json, headers: m.headers };
        }
      },
    };
    this.open.add(subscription);
    return subscription;
  }
}
