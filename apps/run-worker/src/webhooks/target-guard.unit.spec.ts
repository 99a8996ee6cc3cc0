import { isPrivateAddress } from './target-guard';
import { delayAfter } from './retry-schedule';

describe('webhook target ranges', () => {
  it.each([
    '127.0.0.1',
    '127.9.9.9',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('webhook retry schedule', () => {
  it('doubles from the base, caps each wait, and ends after the last attempt (default: about 11 hours)', () => {
    const schedule = { baseMs: 10_000, maxDelayMs: 7_200_000, maxAttempts: 15 };
    const waits = Array.from({ length: 15 }, (_, i) => delayAfter(i + 1, schedule));
    expect(waits.slice(0, 4)).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(waits[13]).toBe(7_200_000);
    expect(waits[14]).toBeNull();
    const total = waits.reduce<number>((sum, w) => sum + (w ?? 0), 0);
    expect(total / 3_600_000).toBeCloseTo(10.84, 1);
  });
});
