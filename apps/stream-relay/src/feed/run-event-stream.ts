import { isTerminalEventType } from '@wrs/domain';
import type { EventResets, StreamReset } from './event-resets';
import type { EventSink, FeedEvent, Subscription } from './feed-event';
import type { StreamLease } from './stream-leases';

/** What a stream delivers: the run's events, and a reset where its events were removed. */
export type StreamItem = { readonly kind: 'event'; readonly event: FeedEvent } | StreamReset;

/** Where a stream delivers: one item at a time (a returned promise holds the next), then its end, once. */
export interface StreamSink {
  item(item: StreamItem): void | Promise<void>;
  /** The stream is over: its terminal event was sent, it was closed, or it failed (`error`). */
  end(error?: unknown): void;
}

/** Where a stream starts: the client's last id, and the run's last event as read when it opened. */
export interface StreamStart {
  readonly workspaceId: string;
  readonly runId: string;
  readonly after: number;
  readonly last: FeedEvent | null;
}

/**
 * One client's stream of a run: its events after the client's id, until the run's terminal event or
 * `close()`. It holds a place in the workspace's stream limit (renewed by `StreamLeases` while held).
 * Events are pushed to its sink as its subscription delivers them: an idle stream waits on nothing.
 */
export class RunEventStream implements EventSink<FeedEvent> {
  private closing: Promise<void> | undefined;
  private sink: StreamSink | undefined;
  /** The first event still to come: the one that decides whether a reset goes before it. */
  private first = true;

  constructor(
    private readonly subscription: Subscription,
    private readonly lease: StreamLease,
    private readonly resets: EventResets,
    private start: StreamStart,
    private readonly onClose: (stream: RunEventStream) => void,
  ) {}

  /** Starts delivering to `sink` (once). */
  pipe(sink: StreamSink): void {
    this.sink = sink;
    const hadEvents = this.start.last !== null;
    // The run's last event as read at the open is needed only here: an open stream does not keep it.
    this.start = { ...this.start, last: null };
    if (hadEvents) {
      this.subscription.start(this);
      return;
    }
    // Accepted but without any event left (or yet): a run that has state but lost its events says so.
    const { workspaceId, runId, after } = this.start;
    void this.resets.check(workspaceId, runId, after, null).then(
      async (reset) => {
        if (reset) {
          await sink.item(reset);
          if (reset.run?.terminal) {
            this.end();
            return;
          }
          // The client now stands at the reset's id: an event after it is no second gap.
          this.start = { ...this.start, after: reset.id };
        }
        this.subscription.start(this);
      },
      (error: unknown) => this.end(error),
    );
  }

  /** An event from the subscription. */
  event(event: FeedEvent): void | Promise<void> {
    const sink = this.sink;
    if (sink === undefined) {
      return;
    }
    if (this.first) {
      this.first = false;
      const { workspaceId, runId, after } = this.start;
      return this.resets.check(workspaceId, runId, after, event).then(async (reset) => {
        if (reset) {
          await sink.item(reset);
        }
        await this.send(sink, event);
      });
    }
    return this.send(sink, event);
  }

  /** The subscription ended, or the stream is over. */
  end(error?: unknown): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.end(error);
  }

  /** Ends the stream and frees its place; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.onClose(this);
      await this.subscription.close();
      await this.lease.release();
    })();
    return this.closing;
  }

  private send(sink: StreamSink, event: FeedEvent): void | Promise<void> {
    const sent = sink.item({ kind: 'event', event });
    if (!isTerminalEventType(event.envelope.type)) {
      return sent;
    }
    // The terminal event is the stream's last.
    if (sent) {
      return sent.then(() => this.end());
    }
    this.end();
  }
}
