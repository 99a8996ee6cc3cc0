import fc from 'fast-check';
import { catchUp, type ChainLink } from './catch-up';

/**
 * Checked against a model: a run's events (sequences, increasing) among other runs', a follower
 * resuming after `afterSeq`, a feed joined at `joinedAt`. What catch-up says must be exactly the run's
 * events in (afterSeq, joinedAt], whichever of the hints it is given.
 */
describe('catchUp: what a follower reads itself before the live feed', () => {
  const chain = (seqs: number[]): ChainLink[] => seqs.map((seq, i) => ({ seq, previous: i === 0 ? 0 : seqs[i - 1]! }));
  const lastAtOrBefore = (links: ChainLink[], at: number): ChainLink | undefined => [...links].reverse().find((l) => l.seq <= at);
  const expected = (links: ChainLink[], afterSeq: number, joinedAt: number): number[] =>
    links.filter((l) => l.seq > afterSeq && l.seq <= joinedAt).map((l) => l.seq);

  function outcome(links: ChainLink[], afterSeq: number, joinedAt: number, hint: 'known' | 'last' | 'none', readBefore: number): number[] | 'consumer' {
    const known = hint === 'known' ? lastAtOrBefore(links, joinedAt) : undefined;
    const last = hint === 'last' ? (lastAtOrBefore(links, readBefore) ?? null) : null;
    let answer = catchUp(afterSeq, joinedAt, hint === 'known' && known === undefined ? undefined : known, last);
    if (answer.kind === 'ask') {
      // Read after joining: the run's last event by then (all its events so far).
      answer = catchUp(afterSeq, joinedAt, undefined, last, links[links.length - 1] ?? null);
      expect(answer.kind).not.toBe('ask');
    }
    if (answer.kind === 'none') {
      return [];
    }
    return answer.kind === 'one' ? [answer.event.seq] : 'consumer';
  }

  it('never misses an event and never claims one the run lacks (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 8 }).map((s) => s.sort((a, b) => a - b)),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom<'known' | 'last' | 'none'>('known', 'last', 'none'),
        fc.integer({ min: 0, max: 60 }),
        (seqs, afterSeq, joinedAt, hint, readBefore) => {
          // `last` is read before joining, but the stream can be ahead of the feed: any position.
          const links = chain(seqs);
          const got = outcome(links, afterSeq, joinedAt, hint, readBefore);
          const want = expected(links, afterSeq, joinedAt);
          if (got === 'consumer') {
            // A consumer read from afterSeq + 1 must find at least one event, or it would wait forever.
            expect(links.some((l) => l.seq > afterSeq)).toBe(true);
            expect(want.length === 1 && hint === 'known').toBe(false);
          } else {
            expect(got).toEqual(want);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a first connection to a run just created needs nothing but the feed or the event it knows', () => {
    const created = { seq: 40, previous: 0 };
    expect(catchUp(0, 45, created, null)).toEqual({ kind: 'one', event: created });
    expect(catchUp(0, 30, undefined, created)).toEqual({ kind: 'none' });
    expect(catchUp(40, 45, created, created)).toEqual({ kind: 'none' });
  });

  it('asks for the run\'s last event when the feed never saw the run and the read one is behind the join', () => {
    expect(catchUp(0, 45, undefined, { seq: 10, previous: 0 })).toEqual({ kind: 'ask' });
    expect(catchUp(0, 45, undefined, null)).toEqual({ kind: 'ask' });
  });
});
