import { MAX_PREFER_WAIT_SECONDS, preferredWaitSeconds } from './prefer-wait';

describe('Prefer: wait (RFC 7240)', () => {
  it('reads wait=N among other preferences, quoted or not, any case', () => {
    expect(preferredWaitSeconds('wait=10')).toBe(10);
    expect(preferredWaitSeconds('respond-async, WAIT = 5')).toBe(5);
    expect(preferredWaitSeconds('wait="7"')).toBe(7);
    expect(preferredWaitSeconds('wait=0')).toBe(0);
  });

  it('caps N at the documented maximum', () => {
    expect(preferredWaitSeconds('wait=3600')).toBe(MAX_PREFER_WAIT_SECONDS);
    expect(preferredWaitSeconds('wait=9', 2)).toBe(2);
  });

  it('ignores what it cannot read, and no header means no wait', () => {
    expect(preferredWaitSeconds(undefined)).toBeNull();
    expect(preferredWaitSeconds('')).toBeNull();
    expect(preferredWaitSeconds('wait=-1')).toBeNull();
    expect(preferredWaitSeconds('wait=soon')).toBeNull();
    expect(preferredWaitSeconds('wait')).toBeNull();
    expect(preferredWaitSeconds('return=minimal')).toBeNull();
  });
});
