import { isIP } from 'node:net';
import { ValidateBy } from 'class-validator';

const RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Express's `trust proxy` from TRUSTED_PROXIES. A bare number is a count of proxy hops in front of the
 * service: the client is the address the nearest of them put last in X-Forwarded-For, which a client
 * cannot choose (an address list trusts every listed hop anywhere in the header, so a client inside a
 * trusted range could name itself). Otherwise, addresses, CIDRs and Express's range names.
 */
export function trustProxySetting(trustedProxies: string): number | string[] {
  const value = trustedProxies.trim();
  return /^\d+$/.test(value) ? Number(value) : value.split(',').map((hop) => hop.trim());
}

/**
 * TRUSTED_PROXIES that Express reads as meant (trustProxySetting): a number of hops alone, or a list of
 * addresses, CIDRs and range names. A number inside a list would be taken for the address 0.0.0.n, and
 * anything else stops the service at its first request, so both are refused here.
 */
export function isTrustedProxies(value: unknown): boolean {
  if (typeof value !== 'string') {
    return false;
  }
  const setting = trustProxySetting(value);
  if (typeof setting === 'number') {
    return true;
  }
  return setting.every((hop) => {
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
