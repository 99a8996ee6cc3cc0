import { throttledPerKey } from './log-throttle';

describe('throttledPerKey', () => {
  it('lets one line per key through each period and says how many it held back', () => {
    let t = 0;
    const allow = throttledPerKey(30_000, () => t);
    expect(allow('a')).toEqual({ log: true, suppressed: 0 });
    expect(allow('a').log).toBe(false);
    expect(allow('a').log).toBe(false);
    expect(allow('b').log).toBe(true);
    t = 30_000;
    expect(allow('a')).toEqual({ log: true, suppressed: 2 });
  });
});
