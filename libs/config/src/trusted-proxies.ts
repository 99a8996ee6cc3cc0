import { isIP } from 'node:net';
import { ValidateBy } from 'class-validator';

const RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUSTED_PROXIES as Express's `trust proxy` reads it (libs/edge/src/trust-proxy.ts): a number of hops
 * alone, or a list of addresses, CIDRs and range names. A number inside a list would be taken for the
 * address 0.0.0.n, and anything else stops the service at its first request, so both are refused here.
 */
export function isTrustedProxies(value: unknown): boolean {
  if (typeof value !== 'string') {
    return false;
  }
  if (/^\s*\d+\s*$/.test(value)) {
    return true;
  }
  return value.split(',').every((entry) => {
    const hop = entry.trim();
    if (RANGES.has(hop)) {
      return true;
    }
    const [address = '', prefix, ...rest] = hop.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) {
      return false;
    }
    return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  });
}

export function TrustedProxies(): PropertyDecorator {
  return ValidateBy({
    name: 'isTrustedProxies',
    validator: {
      validate: isTrustedProxies,
      defaultMessage: () =>
        'TRUSTED_PROXIES must be a number of proxy hops alone (e.g. 1), or addresses, CIDRs and loopback/linklocal/uniquelocal, comma-separated',
    },
  });
}
