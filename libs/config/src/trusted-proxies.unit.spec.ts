import { HttpServiceEnv } from './env-schemas';
import { loadConfig } from './load-config';
import { isTrustedProxies } from './trusted-proxies';

describe('TRUSTED_PROXIES', () => {
  it('takes a number of hops alone, or addresses, CIDRs and range names', () => {
    for (const value of ['1', ' 2 ', '0', 'loopback', 'loopback, 10.0.0.0/8', '::1', 'fc00::/7', 'uniquelocal,192.168.1.1']) {
      expect({ value, ok: isTrustedProxies(value) }).toEqual({ value, ok: true });
    }
  });

  it('refuses a number inside a list (Express would read the address 0.0.0.n) and what Express cannot read', () => {
    for (const value of ['1,2', '1, loopback', '-1', '1.5', 'foo', '10.0.0.0/33', '10.0.0.0/8/1', '']) {
      expect({ value, ok: isTrustedProxies(value) }).toEqual({ value, ok: false });
    }
    expect(() => loadConfig(HttpServiceEnv, { TRUSTED_PROXIES: '1, loopback' })).toThrow(
      /TRUSTED_PROXIES must be a number of proxy hops alone/,
    );
  });
});
