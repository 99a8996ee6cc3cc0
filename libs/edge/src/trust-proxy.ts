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
