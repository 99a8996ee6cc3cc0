import fc from 'fast-check';
import { catchUp, knownSuffices, type ChainLink } from './catch-up';

/**
 * Checked against a model: a run's events (sequences, increasing), a follower resuming after
 * `afterSeq`, a feed joined at `joinedAt` that started at `feedStart` and remembers the run's latest
 * `kept` events. What catch-up answers must be exactly the run's events in (afterSeq, joinedAt].
 */
describe('catchUp: what a follower reads itself before the live feed', () => {
  const chain = (seqs: number[]): ChainLink[] => seqs.map((seq, i) => ({ seq, previous: i === 0 ? 0 : seqs[i - 1]! }));
  const lastAtOrBefore = (links: ChainLink[], at: number): ChainLink | null => [...links].reverse().find((l) => l.seq <= at) ?? null;
  const expected = (links: ChainLink[], afterSeq: number, joinedAt: number): number[] =>
    links.filter((l) => l.seq > afterSeq && l.seq <= joinedAt).map((l) => l.seq);

  it('never misses an event and never claims one the run lacks (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 8 }).map((s) => s.sort((a, b) => a - b)),
        fc.record({
          afterSeq: fc.integer({ min: 0, max: 60 }),
          joinedAt: fc.integer({ min: 0, max: 60 }),
          feedStart: fc.integer({ min: 0, max: 60 }),
          kept: fc.integer({ min: 1, max: 4 }),
          // `last` is read before joining, but the stream can be ahead of the feed: any position.
          readAt: fc.integer({ min: 0, max: 60 }),
          withLast: fc.boolean(),
        }),
        (seqs, { afterSeq, joinedAt, feedStart, kept, readAt, withLast }) => {
          const links = chain(seqs);
          const seen = links.filter((l) => l.seq > Math.min(feedStart, joinedAt) && l.seq <= joinedAt);
          const recent = seen.slice(-kept);
          const last = withLast ? lastAtOrBefore(links, readAt) : null;
          let answer = catchUp(afterSeq, joinedAt, recent, last);
          if (answer.kind === 'ask') {
            // Read after joining: the run's last event by then (all its events so far).
            answer = catchUp(afterSeq, joinedAt, [], last, links[links.length - 1] ?? null);
            expect(answer.kind).not.toBe('ask');
          }
          const want = expected(links, afterSeq, joinedAt);
          if (answer.kind === 'events') {
            expect(answer.events.map((e) => e.seq)).toEqual(want);
          } else {
            // A consumer read from afterSeq + 1 must find at least one event, or it would wait forever.
            expect(links.some((l) => l.seq > afterSeq)).toBe(true);
          }
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('a first connection to a run just created reads nothing itself, however far the run has gone', () => {
    const [created, dispatched, started] = chain([40, 43, 47]) as [ChainLink, ChainLink, ChainLink];
    expect(catchUp(0, 45, [created, dispatched], null)).toEqual({ kind: 'events', events: [created, dispatched] });
    expect(catchUp(0, 50, [created, dispatched, started], null)).toEqual({ kind: 'events', events: [created, dispatched, started] });
    expect(catchUp(0, 30, [], created)).toEqual({ kind: 'events', events: [] });
    expect(catchUp(43, 45, [created, dispatched], null)).toEqual({ kind: 'events', events: [] });
  });

  it('reads with a consumer when what is remembered does not reach back far enough', () => {
    const [, dispatched, started] = chain([40, 43, 47]) as [ChainLink, ChainLink, ChainLink];
    expect(catchUp(0, 50, [dispatched, started], null)).toEqual({ kind: 'consumer' });
  });

  it("asks for the run's last event when the feed never saw the run and the read one is behind the join", () => {
    expect(catchUp(0, 45, [], { seq: 10, previous: 0 })).toEqual({ kind: 'ask' });
    expect(catchUp(0, 45, [], null)).toEqual({ kind: 'ask' });
  });
});

describe("knownSuffices: when the live feed's last event of a run stands for the run's last", () => {
  it('only when the feed has seen at least as far as the client resuming', () => {
    const known = { seq: 40, previous: 30 };
    expect(knownSuffices(known, 0)).toBe(true);
    expect(knownSuffices(known, 40)).toBe(true);
    // The client has an event this relay has not seen yet (its terminal one, say): read the stream.
    expect(knownSuffices(known, 41)).toBe(false);
    expect(knownSuffices(undefined, 0)).toBe(false);
  });
});
