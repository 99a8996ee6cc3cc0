import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { consumeOrdered, decodeRunEvent, previousOf, type StreamNames } from '@wrs/messaging';
import { catchUp, type CatchUp } from './catch-up';
import { FollowerQueue, type EventFirehose, type EventSink, type TailEvent } from './event-firehose';
import { feedEventOf, type FeedEvent, type Subscription } from './feed-event';
import { LiveFirehose } from './live-firehose';

/** How many live events a follower may have waiting before it is ended (its client resumes). */
const MAX_QUEUED_PER_FOLLOWER = 10_000;

/**
 * Reads a run's events for the relay: one shared live consumer (the firehose) feeds every follower, and a
 * follower that starts behind first catches up from the firehose's memory or its own ordered consumer.
 * Stateless, so any replica can serve any resume.
 */
export class RunEventFeed {
  private readonly open = new Set<Subscription>();
  private readonly firehose: LiveFirehose;

  /**
   * Subscriptions end when the connection reconnects: the chaos run showed an ordered consumer can stop
   * delivering after a NATS restart. Clients then resume with Last-Event-ID.
   */
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
    connection?: NatsConnection,
    private readonly maxQueuedPerFollower = MAX_QUEUED_PER_FOLLOWER,
  ) {
    this.firehose = new LiveFirehose(js, jsm, names);
    if (connection) {
      void this.endStreamsOnReconnect(connection);
    }
  }

  private async endStreamsOnReconnect(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'reconnect') {
        await Promise.all([...this.open].map((subscription) => subscription.close()));
        await this.firehose.close();
      }
    }
  }

  /**
   * Opens the firehose now rather than with the first stream: every run created from here on is known
   * to it, so the first streams of those runs read nothing from JetStream themselves.
   */
  async start(): Promise<void> {
    await this.firehose.get();
  }

  /** How many runs have followers on this relay (all fed by one consumer): for tests and metrics. */
  get followedRuns(): number {
    return this.firehose.followedRuns;
  }

  async last(workspaceId: string, runId: string): Promise<FeedEvent | null> {
    const message = await this.jsm.streams.getMessage(this.names.eventsStream, {
      last_by_subj: this.names.runEvents(workspaceId, runId),
    });
    return message
      ? {
          seq: message.seq,
          previous: previousOf(message.header),
          envelope: decodeRunEvent(message.data).envelope,
          json: message.string(),
          headers: message.header,
        }
      : null;
  }

  /**
   * The run's last event as the firehose saw it, if it did (a run active since the relay started):
   * what `last()` reads, without a request. An event newer than it reaches followers through the firehose.
   */
  async known(workspaceId: string, runId: string): Promise<FeedEvent | undefined> {
    return (await this.firehose.get()).known(this.names.runEvents(workspaceId, runId));
  }

  /**
   * The run's events after `afterSeq`, then its live ones. Passing the `last` event the caller already
   * read lets the firehose's memory cover the catch-up, so usually nothing is read from JetStream.
   */
  async follow(workspaceId: string, runId: string, afterSeq: number, last: FeedEvent | null = null): Promise<Subscription> {
    const firehose = await this.firehose.get();
    const subject = this.names.runEvents(workspaceId, runId);
    const queue = new FollowerQueue<FeedEvent>(this.maxQueuedPerFollower);
    // Attached in one synchronous step: every event after `joinedAt` reaches the queue.
    const { joinedAt, recent } = firehose.attach(subject, queue);
    let plan: CatchUp<FeedEvent>;
    let history: ConsumerMessages | null = null;
    try {
      plan = catchUp(afterSeq, joinedAt, recent, last);
      if (plan.kind === 'ask') {
        plan = catchUp(afterSeq, joinedAt, [], last, await this.last(workspaceId, runId));
      }
      history = plan.kind === 'consumer' ? await this.eventsAfter(subject, afterSeq) : null;
    } catch (error) {
      firehose.detach(subject, queue);
      throw error;
    }
    const subscription = new FollowedRun(this.open, firehose, subject, queue, afterSeq, joinedAt, plan, history);
    this.open.add(subscription);
    return subscription;
  }

  /** Ends every stream and the firehose (the relay's shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((subscription) => subscription.close()));
    await this.firehose.close();
  }

  /** An ordered consumer of one run's events from `afterSeq + 1`: what a follower behind the firehose reads. */
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

/**
 * One follower of a run: its catch-up (the firehose's memory, or an ordered consumer of its own) sent
 * once, then its live queue pushed to the sink as events arrive. Once caught up it holds nothing but
 * the queue: no pending read, no generator.
 */
class FollowedRun implements Subscription, EventSink<TailEvent<FeedEvent>> {
  private closed = false;
  private sink: EventSink<FeedEvent> | undefined;
  private caughtUp: readonly FeedEvent[];
  /** The last sequence handed to the sink: the live queue may repeat what the catch-up sent. */
  private delivered: number;

  constructor(
    private readonly open: Set<Subscription>,
    private readonly firehose: EventFirehose<FeedEvent>,
    private readonly subject: string,
    private readonly queue: FollowerQueue<FeedEvent>,
    afterSeq: number,
    private readonly joinedAt: number,
    plan: CatchUp<FeedEvent>,
    private history: ConsumerMessages | null,
  ) {
    this.delivered = afterSeq;
    this.caughtUp = plan.kind === 'events' ? plan.events : [];
  }

  start(sink: EventSink<FeedEvent>): void {
    this.sink = sink;
    void this.catchUp(sink).then(
      () => this.queue.pipe(this),
      (error: unknown) => {
        this.sink = undefined;
        void this.close();
        sink.end(error);
      },
    );
  }

  /** A live event from the queue. */
  event(e: TailEvent<FeedEvent>): void | Promise<void> {
    if (e.seq > this.delivered && this.sink) {
      this.delivered = e.seq;
      return this.sink.event(e.value);
    }
  }

  /** The queue ended: so does the subscription. */
  end(error?: unknown): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.end(error);
  }

  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.open.delete(this);
    this.queue.end();
    this.firehose.detach(this.subject, this.queue);
    await this.history?.close();
  }

  private async catchUp(sink: EventSink<FeedEvent>): Promise<void> {
    // What the catch-up held is dropped once sent: an open stream keeps only its live queue.
    const caughtUp = this.caughtUp;
    this.caughtUp = [];
    for (const event of caughtUp) {
      if (this.closed) {
        return;
      }
      this.delivered = event.seq;
      await sink.event(event);
    }
    const history = this.history;
    if (history) {
      // The events it lacks up to where it joined the firehose; any later one comes from it.
      for await (const m of history) {
        if (this.closed || m.seq > this.joinedAt) {
          break;
        }
        this.delivered = m.seq;
        await sink.event(feedEventOf(m));
        if (m.seq >= this.joinedAt || m.info.pending === 0) {
          break;
        }
      }
      await history.close();
      this.history = null;
    }
  }
}
