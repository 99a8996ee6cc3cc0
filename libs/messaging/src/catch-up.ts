/** What a follower knows of one of the run's events: its sequence and the run's previous one. */
export interface ChainLink {
  readonly seq: number;
  /** The run's previous event's sequence; null when the message does not say (older events). */
  readonly previous: number | null;
}

/**
 * What a follower that resumes after `afterSeq` must read itself, having joined the live feed at
 * `joinedAt` (every event after it reaches the follower from the feed):
 * - `none`: the run has no event in (afterSeq, joinedAt];
 * - `one`: exactly one, the event given;
 * - `consumer`: several, or ones not known here: read them with a consumer from afterSeq + 1 up to
 *   joinedAt (there is at least one, so that read ends);
 * - `ask`: not enough is known: read the run's last event now and ask again with it as `fresh`.
 */
export type CatchUp<T extends ChainLink> =
  | { readonly kind: 'none' }
  | { readonly kind: 'one'; readonly event: T }
  | { readonly kind: 'consumer' }
  | { readonly kind: 'ask' };

/**
 * `known` is the run's last event at or before `joinedAt`, exactly, when the live feed saw it (the
 * feed sees every event after it started, in order). `last` is the run's last event as read before
 * joining, `fresh` as read after joining. A run's events form a chain through `previous`, so an event
 * whose previous is at or before `afterSeq` is the only one after `afterSeq` up to itself.
 */
export function catchUp<T extends ChainLink>(afterSeq: number, joinedAt: number, known: T | undefined, last: T | null, fresh?: T | null): CatchUp<T> {
  if (afterSeq >= joinedAt) {
    return { kind: 'none' };
  }
  const exact = known ?? (fresh === undefined ? undefined : fresh);
  if (exact !== undefined) {
    if (exact === null || exact.seq <= afterSeq) {
      return { kind: 'none' };
    }
    if (exact.previous !== null && exact.previous <= afterSeq) {
      // Read after joining, it may be newer than the join: then the feed brings it.
      return exact.seq <= joinedAt ? { kind: 'one', event: exact } : { kind: 'none' };
    }
    return { kind: 'consumer' };
  }
  // Read before joining, a last event after the join with nothing of the run since afterSeq before it:
  // the run has nothing up to the join that the follower lacks, and the feed brings that event.
  if (last && last.seq > joinedAt && last.previous !== null && last.previous <= afterSeq) {
    return { kind: 'none' };
  }
  return { kind: 'ask' };
}
