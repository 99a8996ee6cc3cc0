import { ServerAddresses } from './server-guard';

describe('where Kubernetes API servers may be (KUBERNETES_ALLOWED_PRIVATE_RANGES)', () => {
  it.each(['93.184.216.34', '2606:4700:4700::1111'])('any public address: %s', (address) => {
    expect(ServerAddresses.PUBLIC_ONLY.permits(address)).toBe(true);
  });

  it.each(['127.0.0.1', '10.0.0.12', '169.254.169.254', '::1', 'fd00::1', '::ffff:10.0.0.12', '64:ff9b:1::a00:c', 'not an address'])(
    'by default no private address: %s',
    (address) => {
      expect(ServerAddresses.PUBLIC_ONLY.permits(address)).toBe(false);
      expect(new ServerAddresses('').permits(address)).toBe(false);
    },
  );

  const operators = new ServerAddresses(' 10.20.0.0/16, 10.30.1.5 ,fd00:1::/64');

  it.each(['10.20.3.4', '10.20.255.255', '10.30.1.5', '::ffff:10.20.0.1', 'fd00:1::5', '8.8.8.8'])(
    'the ranges the operator names, and public addresses: %s',
    (address) => {
      expect(operators.permits(address)).toBe(true);
    },
  );

  it.each(['10.21.0.1', '10.30.1.6', '127.0.0.1', '169.254.169.254', 'fd00:2::1', '::1'])('no other private address: %s', (address) => {
    expect(operators.permits(address)).toBe(false);
  });

  it('an IPv4-mapped range is its IPv4 range, no wider', () => {
    const mapped = new ServerAddresses('::ffff:10.0.0.0/104');
    expect(['10.1.2.3', '::ffff:10.1.2.3'].map((a) => mapped.permits(a))).toEqual([true, true]);
    expect(['127.0.0.1', '169.254.169.254', '192.168.1.1'].map((a) => mapped.permits(a))).toEqual([false, false, false]);
  });

  it('a mapped range is converted, not just matched: ::ffff:0:0/100 is 0.0.0.0/4 and allows 10.0.0.1, not 127.0.0.1', () => {
    const quarter = new ServerAddresses('::ffff:0:0/100');
    expect(['10.0.0.1', '127.0.0.1'].map((a) => quarter.permits(a))).toEqual([true, false]);
  });

  it.each(['::ffff:10.0.0.0/8', '::/64', '::/0', '::ffff:0:0/95', '::ffff:0:0/96', 'fe80::1%eth0/64'])(
    'refuses an IPv6 range that holds every IPv4 address (mapped), loopback included: %s',
    (setting) => {
      expect(() => new ServerAddresses(setting)).toThrow(/KUBERNETES_ALLOWED_PRIVATE_RANGES/);
    },
  );

  it.each(['10.0.0.0/33', 'cluster.internal', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/', '10.0.0.0/x', '*'])(
    'refuses a setting that is not CIDRs or addresses: %s',
    (setting) => {
      expect(() => new ServerAddresses(setting)).toThrow(/KUBERNETES_ALLOWED_PRIVATE_RANGES/);
    },
  );
});
