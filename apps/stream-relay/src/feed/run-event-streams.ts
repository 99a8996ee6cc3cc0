import { isTerminalEventType, isUuid } from '@wrs/domain';
import type { EffectiveLimits } from '@wrs/limits';
import type { RunQueries } from '@wrs/persistence';
import { knownSuffices } from './catch-up';
import { EventResets } from './event-resets';
import type { Subscription } from './feed-event';
import type { RunEventFeed } from './run-event-feed';
import { RunEventStream } from './run-event-stream';
import type { StreamLeases } from './stream-leases';

/** What opening a run's stream answers. */
export type OpenedStream =
  | { readonly kind: 'not_found' }
  /** The client already has the run's terminal event. */
  | { readonly kind: 'finished' }
  /** The workspace has `limit` streams open already. */
  | { readonly kind: 'too_many_streams'; readonly limit: number }
  | { readonly kind: 'stream'; readonly stream: RunEventStream };

const NOT_FOUND = { kind: 'not_found' } as const;
const FINISHED = { kind: 'finished' } as const;

/** The relay's event streams: which run a client may follow, from where, and how many at once. */
export class RunEventStreams {
  private readonly live = new Set<RunEventStream>();
  private readonly resets: EventResets;
  private endingAll = false;

  constructor(
    private readonly feed: RunEventFeed,
    private readonly queries: RunQueries,
    private readonly leases: StreamLeases,
    private readonly limits: EffectiveLimits,
  ) {
    this.resets = new EventResets(feed, queries);
  }

  /** Opens the stream of the workspace's run after `after` (the client's Last-Event-ID, 0 for none). */
  async open(workspaceId: string, runId: string, after: number): Promise<OpenedStream> {
    if (!isUuid(runId)) {
      return NOT_FOUND;
    }
    // The subject carries the caller's workspace, so another workspace's run is simply not found.
    // A run active since the relay started is known to its firehose: no request to JetStream (unless
    // the client has seen further than the firehose has).
    const known = await this.feed.known(workspaceId, runId);
    const last = knownSuffices(known, after) ? known : await this.feed.last(workspaceId, runId);
    const row = last ? null : await this.queries.find(workspaceId, runId);
    if (!last && !row) {
      return NOT_FOUND;
    }
    // Finished and seen to its end by the client: from its events, or, when none is held any more
    // (retention, a purge), from its row.
    const seenToEnd = last ? isTerminalEventType(last.envelope.type) && last.seq <= after : row!.terminal && row!.version <= after;
    if (seenToEnd) {
      return FINISHED;
    }
    const { maxEventStreams } = await this.limits.for(workspaceId);
    const lease = await this.leases.acquire(workspaceId, maxEventStreams);
    if (!lease.granted) {
      return { kind: 'too_many_streams', limit: maxEventStreams };
    }
    let subscription: Subscription;
    try {
      subscription = await this.feed.follow(workspaceId, runId, after, last);
    } catch (error) {
      await lease.lease.release();
      throw error;
    }
    const start = { workspaceId, runId, after, last };
    const stream = new RunEventStream(subscription, lease.lease, this.resets, start, (s) => this.live.delete(s));
    this.live.add(stream);
    return { kind: 'stream', stream };
  }

  /**
   * True once `closeAll` has run: a stream opened since (its request came in while the relay was still
   * listening, or it was opening then) is to be ended as soon as it is piped, as those were.
   */
  get ending(): boolean {
    return this.endingAll;
  }

  /** Ends every open stream (SIGTERM): their clients resume with Last-Event-ID on another replica. */
  async closeAll(): Promise<void> {
    this.endingAll = true;
    await Promise.all([...this.live].map((stream) => stream.close()));
  }
}
