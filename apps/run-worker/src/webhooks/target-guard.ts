import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP, isIPv4 } from 'node:net';

/** The error a refused target fails with; the sender records it as `refused_target`. */
export class TargetRefusedError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
  constructor(readonly address: string) {
    super(`webhook target ${address} is in a loopback, link-local or private range`);
    this.name = 'TargetRefusedError';
  }
}

/** Loopback, link-local, private, shared (CGNAT), multicast and reserved ranges: never a public endpoint. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2002::', 16],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** True when the address may not be connected to (an IPv4-mapped IPv6 address is judged as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(.+)$/i.exec(address)?.[1];
  if (mapped && isIPv4(mapped)) {
    return PRIVATE.check(mapped, 'ipv4');
  }
  const family = isIP(address);
  if (family === 0) {
    return true;
  }
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the HTTP agent: the addresses it answers are the ones the socket connects to, so the
 * check cannot be raced by a second resolution (DNS rebinding). A name with any refused address is
 * refused as a whole.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      const refused = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (refused || addresses.length === 0) {
        callback(new TargetRefusedError(refused?.address ?? hostname), []);
        return;
      }
      if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, addresses[0]!.address, addresses[0]!.family);
      }
    });
  };
}

/** A URL's host given as an address is connected to without any lookup: it is checked here instead. */
export function literalTargetRefused(url: URL, allowPrivate: boolean): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return !allowPrivate && isIP(host) !== 0 && isPrivateAddress(host);
}
