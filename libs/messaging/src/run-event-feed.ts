import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { StreamNames } from './names';
import type { MsgHdrs, NatsConnection } from '@nats-io/nats-core';
import { decodeRunEvent, previousOf, type RunEventEnvelope } from './run-event-codec';
import { consumeOrdered } from './ordered-read';
import { FollowerQueue, RunTail } from './run-tail';

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

/** How many live events a follower may have waiting before it is ended (its client resumes). */
const MAX_QUEUED_PER_FOLLOWER = 10_000;

/**
 * Reads a run's events for the stream-relay. Followers of a run on one relay share one live ordered
 * consumer of the run's subject (a `RunTail`); a follower that starts behind it first reads the events
 * it lacks with an ordered consumer of its own, which it closes once it reaches the tail. Stateless
 * across replicas: any replica can serve any resume.
 */
export class RunEventFeed {
  private readonly open = new Set<Subscription>();
  private readonly tails = new Map<string, Promise<RunTail<FeedEvent>>>();

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
    private readonly maxQueuedPerFollower = MAX_QUEUED_PER_FOLLOWER,
  ) {
    if (connection) {
      void this.endStreamsOnReconnect(connection);
    }
  }

  private async endStreamsOnReconnect(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'reconnect') {
        await Promise.all([...this.open].map((subscription) => subscription.close()));
        await Promise.all([...this.tails.values()].map(async (tail) => (await tail.catch(() => null))?.close()));
      }
    }
  }

  /** How many live consumers this feed holds (one per followed run): for tests and metrics. */
  get liveConsumers(): number {
    return this.tails.size;
  }

  async last(workspaceId: string, runId: string): Promise<FeedEvent | null> {
    const message = await this.jsm.streams.getMessage(this.names.eventsStream, {
      last_by_subj: this.names.runEvents(workspaceId, runId),
    });
    return message
      ? { seq: message.seq, previous: previousOf(message.header), envelope: decodeRunEvent(message.data).envelope, json: message.string(), headers: message.header }
      : null;
  }

  /** A run that has no event yet exists if its create command was accepted. */
  async accepted(workspaceId: string, runId: string): Promise<boolean> {
    const message = await this.jsm.streams.getMessage(this.names.commandsStream, {
      last_by_subj: this.names.createCommand(workspaceId, runId),
    });
    return message !== null;
  }

  /**
   * The run's events after `afterSeq`, then its live ones. `last` is the run's last event as the
   * caller just read it (`last()`), if it did: a new tail opens there, and a follower that lacks only
   * that event (the first connection to a run just created) gets it from there instead of from a
   * consumer of its own.
   */
  async follow(workspaceId: string, runId: string, afterSeq: number, last: FeedEvent | null = null): Promise<Subscription> {
    const tail = await this.tailOf(workspaceId, runId, last?.seq);
    const queue = new FollowerQueue<FeedEvent>(this.maxQueuedPerFollower);
    // Attached in the same turn the tail was got: every event after `joinedAt` reaches the queue.
    const joinedAt = tail.attach(queue);
    // The run has no event between `afterSeq` and `last` when `last` names its previous one at or before it.
    const lacksOnlyLast =
      last !== null && last.seq === joinedAt && afterSeq < last.seq && last.previous !== null && last.previous <= afterSeq;
    let history: ConsumerMessages | null = null;
    try {
      history = afterSeq < joinedAt && !lacksOnlyLast ? await this.eventsAfter(this.names.runEvents(workspaceId, runId), afterSeq) : null;
    } catch (error) {
      tail.detach(queue);
      throw error;
    }
    const open = this.open;
    let closed = false;
    const subscription: Subscription = {
      close: async () => {
        if (closed) {
          return;
        }
        closed = true;
        open.delete(subscription);
        queue.end();
        tail.detach(queue);
        await history?.close();
      },
      async *[Symbol.asyncIterator]() {
        let delivered = afterSeq;
        if (lacksOnlyLast && !closed) {
          delivered = last.seq;
          yield last;
        }
        if (history) {
          // The events it lacks up to where it joined the tail; any later one comes from the tail.
          for await (const m of history) {
            if (closed || m.seq > joinedAt) {
              break;
            }
            delivered = m.seq;
            yield feedEventOf(m);
            if (m.seq >= joinedAt || m.info.pending === 0) {
              break;
            }
          }
          await history.close();
        }
        for await (const e of queue.drain()) {
          if (e.seq > delivered) {
            delivered = e.seq;
            yield e.value;
          }
        }
      },
    };
    this.open.add(subscription);
    if (tail.isClosed) {
      // The tail ended between being got and joined (its consumer failed): the stream ends at once
      // and the client resumes.
      queue.end();
    }
    return subscription;
  }

  /**
   * The run's tail on this relay; if there is none, one opened at `lastSeq` (the run's last sequence
   * as the caller read it: a later event still comes through the tail) or at the subject's last.
   */
  private async tailOf(workspaceId: string, runId: string, lastSeq?: number): Promise<RunTail<FeedEvent>> {
    const key = `${workspaceId}/${runId}`;
    for (;;) {
      let pending = this.tails.get(key);
      if (!pending) {
        pending = this.openTail(workspaceId, runId, lastSeq, () => {
          if (this.tails.get(key) === pending) {
            this.tails.delete(key);
          }
        });
        this.tails.set(key, pending);
        pending.catch(() => this.tails.get(key) === pending && this.tails.delete(key));
      }
      const tail = await pending;
      if (!tail.isClosed) {
        return tail;
      }
    }
  }

  private async openTail(workspaceId: string, runId: string, lastSeq: number | undefined, onClosed: () => void): Promise<RunTail<FeedEvent>> {
    const subject = this.names.runEvents(workspaceId, runId);
    const position = lastSeq ?? (await this.jsm.streams.getMessage(this.names.eventsStream, { last_by_subj: subject }))?.seq ?? 0;
    return new RunTail<FeedEvent>(await this.eventsAfter(subject, position), position, feedEventOf, onClosed);
  }

  /**
   * An ordered consumer of one run's events from `afterSeq + 1`: the tail's, and the one a follower
   * behind the tail catches up with.
   */
  private async eventsAfter(subject: string, afterSeq: number): Promise<ConsumerMessages> {
    return consumeOrdered(
      this.js,
      this.jsm,
      this.names.eventsStream,
      { filter_subjects: subject, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: afterSeq + 1 },
      { max_messages: 256 },
    );
  }
}

function feedEventOf(m: JsMsg): FeedEvent {
  return { seq: m.seq, previous: previousOf(m.headers), envelope: decodeRunEvent(m.data).envelope, json: m.string(), headers: m.headers };
}
