/** What a follower knows of one of the run's events: its sequence and the run's previous one. */
export interface ChainLink {
  readonly seq: number;
  /** The run's previous event's sequence; null when the message does not say (older events). */
  readonly previous: number | null;
}

/**
 * What a follower resuming after `afterSeq` must read itself (later events come from the live feed):
 * `events` already at hand, `consumer` to read afterSeq + 1 up to `joinedAt`, or `ask` to read the
 * run's last event and ask again with it as `fresh`.
 */
export type CatchUp<T extends ChainLink> =
  { readonly kind: 'events'; readonly events: readonly T[] } | { readonly kind: 'consumer' } | { readonly kind: 'ask' };

const NONE = { kind: 'events', events: [] } as const;

/**
 * `recent` is the feed's memory of the run: a contiguous stretch of its latest events up to `joinedAt`.
 * `last` and `fresh` are the run's last event read before and after joining. Events chain through
 * `previous`, so an event whose previous is at or before `afterSeq` is the first one after it.
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
 * Whether the feed's last event (`known`) can stand for the run's last event. Not when the client has seen
 * further (another relay served it): the stream could wait for a run that already finished instead of
 * answering 204, so the last event is read from JetStream instead.
 */
export function knownSuffices<T extends ChainLink>(known: T | undefined, afterSeq: number): known is T {
  return known !== undefined && known.seq >= afterSeq;
}
