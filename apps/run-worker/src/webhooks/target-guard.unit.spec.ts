import { isPrivateAddress, literalTargetRefused } from './target-guard';
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

  it.each([
    ['64:ff9b:1::a00:1', 'local-use NAT64 (RFC 8215) of 10.0.0.1'],
    ['64:ff9b:1:ffff::1', 'local-use NAT64, the end of its /48'],
    ['64:ff9b::7f00:1', 'well-known NAT64 (RFC 6052) of 127.0.0.1'],
    ['fec0::1', 'deprecated site-local (RFC 3879)'],
    ['feff:ffff::1', 'site-local, the end of fec0::/10'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (RFC 4380)'],
    ['::a00:1', 'IPv4-compatible (deprecated) 10.0.0.1'],
    ['::7f00:1', 'IPv4-compatible (deprecated) 127.0.0.1'],
    ['2002:a00:1::1', '6to4 of 10.0.0.1'],
  ])('refuses %s: %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    // Beside the new ranges, not in them: Google's 2001:4860::/32 is past Teredo's /32, 64:ff9b:2:: past the NAT64 /48.
    '2001:4860:4860::8888',
    '64:ff9b:2::1',
  ])('allows %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each([
    ['https://10.0.0.1/hook', true],
    // The URL parser writes an IPv4-mapped address in hex ([::ffff:a00:1]): still judged as 10.0.0.1.
    ['https://[::ffff:10.0.0.1]/hook', true],
    ['https://[fec0::1]/hook', true],
    ['https://[64:ff9b:1::a00:1]/hook', true],
    ['https://93.184.216.34/hook', false],
    ['https://hooks.example.com/hook', false],
  ])('judges the literal address of %s before connecting (refused: %s)', (url, refused) => {
    expect(literalTargetRefused(new URL(url), false)).toBe(refused);
    expect(literalTargetRefused(new URL(url), true)).toBe(false);
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
