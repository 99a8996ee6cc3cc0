/** What a follower knows of one of the run's events: its sequence and the run's previous one. */
export interface ChainLink {
  readonly seq: number;
  /** The run's previous event's sequence; null when the message does not say (older events). */
  readonly previous: number | null;
}

/**
 * What a follower that resumes after `afterSeq` must read itself, having joined the live feed at
 * `joinedAt` (every event after it reaches the follower from the feed):
 * - `events`: exactly these (none, one or several), already at hand;
 * - `consumer`: ones not at hand: read them with a consumer from afterSeq + 1 up to joinedAt (there is
 *   at least one event after afterSeq, so that read ends);
 * - `ask`: not enough is known: read the run's last event now and ask again with it as `fresh`.
 */
export type CatchUp<T extends ChainLink> =
  { readonly kind: 'events'; readonly events: readonly T[] } | { readonly kind: 'consumer' } | { readonly kind: 'ask' };

const NONE = { kind: 'events', events: [] } as const;

/**
 * `recent` is what the live feed remembers of the run: its events up to `joinedAt`, the latest ones,
 * a contiguous stretch of the run's chain (the feed sees every event after it started, in order); the
 * stretch reaches back to its first event's `previous`. `last` is the run's last event as read before
 * joining, `fresh` as read after joining. A run's events form a chain through `previous`, so an event
 * whose previous is at or before `afterSeq` is the only one after `afterSeq` up to itself.
 */
export function catchUp<T extends ChainLink>(
  afterSeq: number,
  joinedAt: number,
  recent: readonly T[],
  last: T | null,
  fresh?: T | null,
): CatchUp<T> {
  if (afterSeq >= joinedAt) {
    return NONE;
  }
  const newest = recent[recent.length - 1];
  if (newest !== undefined) {
    if (newest.seq <= afterSeq) {
      return NONE;
    }
    const oldest = recent[0]!;
    if (oldest.previous !== null && oldest.previous <= afterSeq) {
      return { kind: 'events', events: recent.filter((e) => e.seq > afterSeq) };
    }
    return { kind: 'consumer' };
  }
  if (fresh !== undefined) {
    if (fresh === null || fresh.seq <= afterSeq) {
      return NONE;
    }
    if (fresh.previous !== null && fresh.previous <= afterSeq) {
      // Read after joining, it may be newer than the join: then the feed brings it.
      return fresh.seq <= joinedAt ? { kind: 'events', events: [fresh] } : NONE;
    }
    return { kind: 'consumer' };
  }
  // Read before joining, a last event after the join with nothing of the run since afterSeq before it:
  // the run has nothing up to the join that the follower lacks, and the feed brings that event.
  if (last && last.seq > joinedAt && last.previous !== null && last.previous <= afterSeq) {
    return NONE;
  }
  return { kind: 'ask' };
}

/**
 * Whether the live feed's last event of a run (`known`) can stand for the run's last event when a
 * client resumes after `afterSeq`. Not when the client has seen further than the feed (another relay
 * served it; this one is behind by a moment): the feed's event could say "not finished" about a run
 * whose terminal event the client already has, and the stream would wait for nothing instead of
 * answering 204. Then the run's last event is read from JetStream.
 */
export function knownSuffices<T extends ChainLink>(known: T | undefined, afterSeq: number): known is T {
  return known !== undefined && known.seq >= afterSeq;
}
