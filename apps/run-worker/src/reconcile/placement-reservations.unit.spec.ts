import fc from 'fast-check';
import { PlaceLoadReader, PlacementReservations } from './placement-reservations';

describe('PlaceLoadReader', () => {
  function reader(counts: Map<string, number>[]) {
    let now = 1_000;
    let queries = 0;
    const reservations = new PlacementReservations();
    const loads = new PlaceLoadReader(
      { placedCounts: () => Promise.resolve(counts[queries++] ?? new Map()) },
      reservations,
      () => now,
      100,
    );
    return { loads, reservations, queries: () => queries, advance: (ms: number) => (now += ms), now: () => now };
  }

  it('uses a count begun less than its max age ago again, and queries once it is older', async () => {
    const r = reader([new Map([['p/r', 3]]), new Map([['p/r', 1]])]);
    expect((await r.loads.read()).counts.get('p/r')).toBe(3);
    r.advance(99);
    expect((await r.loads.read()).counts.get('p/r')).toBe(3);
    expect(r.queries()).toBe(1);
    r.advance(1);
    expect((await r.loads.read()).counts.get('p/r')).toBe(1);
    expect(r.queries()).toBe(2);
  });

  it('one query for the dispatches that ask while it is in flight', async () => {
    const r = reader([new Map([['p/r', 2]])]);
    const [a, b] = await Promise.all([r.loads.read(), r.loads.read()]);
    expect(a).toBe(b);
    expect(r.queries()).toBe(1);
  });

  it('a placement made after the count it reuses was begun is counted on top of it, projected or not', async () => {
    const r = reader([new Map([['p/r', 2]])]);
    await r.loads.read();
    r.advance(10);
    r.reservations.reserve('run-1', 'p/r');
    r.advance(10);
    r.reservations.reserve('run-2', 'p/r');
    r.reservations.projected('run-2', r.now());
    const again = await r.loads.read();
    expect(r.queries()).toBe(1);
    expect((again.counts.get('p/r') ?? 0) + r.reservations.extra('p/r', again.queriedAtMs)).toBe(4);
  });
});

describe('PlacementReservations', () => {
  /** What the tallies stand for: every reservation, scanned (the implementation before them). */
  class ScannedReservations {
    readonly byRun = new Map<string, { place: string; projectedAtMs: number | null }>();
    reserve(runId: string, place: string): void {
      this.byRun.set(runId, { place, projectedAtMs: null });
    }
    release(runId: string): void {
      this.byRun.delete(runId);
    }
    projected(runId: string, nowMs: number): void {
      const entry = this.byRun.get(runId);
      if (entry && entry.projectedAtMs === null && Number.isFinite(nowMs)) {
        entry.projectedAtMs = nowMs;
      }
    }
    extra(place: string, queriedAtMs: number): number {
      return [...this.byRun.values()].filter((e) => e.place === place && (e.projectedAtMs === null || e.projectedAtMs >= queriedAtMs))
        .length;
    }
    prune(queriedAtMs: number): void {
      for (const [runId, e] of this.byRun) {
        if (e.projectedAtMs !== null && e.projectedAtMs < queriedAtMs) {
          this.byRun.delete(runId);
        }
      }
    }
  }

  const runs = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
  const places = ['p/a', 'p/b', 'q/a'];
  const operation = fc.oneof(
    fc.record({ kind: fc.constant('reserve' as const), runId: fc.constantFrom(...runs), place: fc.constantFrom(...places) }),
    fc.record({ kind: fc.constant('release' as const), runId: fc.constantFrom(...runs) }),
    // Times out of order too (clocks of tests, a reordered poke): the count must not depend on order.
    fc.record({
      kind: fc.constant('projected' as const),
      runId: fc.constantFrom(...runs),
      atMs: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.double({ min: 0, max: 20 }), fc.constant(Number.NaN)),
    }),
    fc.record({ kind: fc.constant('prune' as const), atMs: fc.integer({ min: 0, max: 20 }) }),
  );

  it('counts each place exactly as a scan of every reservation would, whatever the order of changes', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const tallied = new PlacementReservations();
        const scanned = new ScannedReservations();
        for (const op of operations) {
          for (const r of [tallied, scanned]) {
            if (op.kind === 'reserve') {
              r.reserve(op.runId, op.place);
            } else if (op.kind === 'release') {
              r.release(op.runId);
            } else if (op.kind === 'projected') {
              r.projected(op.runId, op.atMs);
            } else {
              r.prune(op.atMs);
            }
          }
          for (const place of places) {
            for (const queriedAtMs of [0, 5, 10, 15, 21]) {
              expect(tallied.extra(place, queriedAtMs)).toBe(scanned.extra(place, queriedAtMs));
            }
          }
        }
        // Nothing is left counted once every reservation is released.
        runs.forEach((runId) => tallied.release(runId));
        expect(places.map((place) => tallied.extra(place, 0))).toEqual([0, 0, 0]);
      }),
      { numRuns: 300 },
    );
  });
});
