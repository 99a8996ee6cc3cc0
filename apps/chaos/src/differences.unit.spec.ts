import { differences } from './differences';

describe('differences', () => {
  it('is empty for equal values whatever the key order', () => {
    expect(differences({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
  });

  it('names each differing path with both values, absent keys included', () => {
    expect(differences({ state: 'canceled', failure: { code: 'x' }, list: [1, 2] }, { state: 'canceled', list: [1, 3] })).toEqual([
      '$.failure: {"code":"x"} vs absent',
      '$.list[1]: 2 vs 3',
    ]);
  });

  it('shortens long values and stops at the limit', () => {
    const long = 'x'.repeat(200);
    const [first] = differences({ a: long }, { a: 'y' });
    expect(first!.length).toBeLessThan(120);
    expect(differences({ a: 1, b: 1, c: 1 }, { a: 2, b: 2, c: 2 }, '$', 2)).toHaveLength(2);
  });
});
