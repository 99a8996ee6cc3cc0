import { atLeast, atMost, below, describeTarget, verdictOf } from './target';
import { median } from './stats';

describe('bench targets: the verdict the bench writes beside each figure', () => {
  it('bounds the value or the ratio, with the operator the target names', () => {
    expect(verdictOf(atMost(5), { value: 5 })).toBe('met');
    expect(verdictOf(atMost(5), { value: 5.01 })).toBe('missed');
    expect(verdictOf(below(100), { value: 100 })).toBe('missed');
    expect(verdictOf(below(100), { value: 99.9 })).toBe('met');
    expect(verdictOf(atLeast(0.15, 'ratio'), { value: 10, ratio: 0.15 })).toBe('met');
    expect(verdictOf(atLeast(0.15, 'ratio'), { value: 10_000, ratio: 0.149 })).toBe('missed');
  });

  it('misses when the bounded number is absent or not a number (an empty sample, a missing baseline)', () => {
    expect(verdictOf(atLeast(0.4, 'ratio'), { value: 900 })).toBe('missed');
    expect(verdictOf(below(20), { value: NaN })).toBe('missed');
    expect(verdictOf(atMost(1.3, 'ratio'), { value: 1, ratio: Infinity })).toBe('missed');
  });

  it('describes a target for the table', () => {
    expect(describeTarget(atLeast(0.15, 'ratio'), 'req/s')).toBe('ratio ≥ 0.15');
    expect(describeTarget(below(100), 'ms')).toBe('< 100 ms');
  });
});

describe('median', () => {
  it('is the middle of an odd count, the mean of the middle two of an even count, NaN of none', () => {
    expect(median([14.9, 18, 17.9])).toBe(17.9);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});
