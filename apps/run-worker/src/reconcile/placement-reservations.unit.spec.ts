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
