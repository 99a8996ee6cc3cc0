import { isTerminalEventType } from '@wrs/domain';
import type { EventResets, StreamReset } from './event-resets';
import type { FeedEvent, Subscription } from './feed-event';
import type { StreamLease } from './stream-leases';

/** What a stream delivers: the run's events, and a reset where its events were removed. */
export type StreamItem = { readonly kind: 'event'; readonly event: FeedEvent } | StreamReset;

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
 */
export class RunEventStream implements AsyncIterable<StreamItem> {
  private closing: Promise<void> | undefined;

  constructor(
    private readonly subscription: Subscription,
    private readonly lease: StreamLease,
    private readonly resets: EventResets,
    private start: StreamStart,
    private readonly onClose: (stream: RunEventStream) => void,
  ) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamItem> {
    const { workspaceId, runId, after } = this.start;
    const hadEvents = this.start.last !== null;
    // The run's last event as read at the open is needed only here: an open stream does not keep it.
    this.start = { workspaceId, runId, after, last: null };
    if (!hadEvents) {
      // Accepted but without any event left (or yet): a run that has state but lost its events says so.
      const reset = await this.resets.check(workspaceId, runId, after, null);
      if (reset) {
        yield reset;
        if (reset.run?.terminal) {
          return;
        }
      }
    }
    let first = true;
    for await (const event of this.subscription) {
      if (first) {
        first = false;
        const reset = await this.resets.check(workspaceId, runId, after, event);
        if (reset) {
          yield reset;
        }
      }
      yield { kind: 'event', event };
      if (isTerminalEventType(event.envelope.type)) {
        return;
      }
    }
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
}
