import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { Agent, type AgentOptions, type RequestOptions } from 'node:https';
import { BlockList, isIP, isIPv4 } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Addresses that are never a public endpoint: loopback, link-local, private, shared (CGNAT),
 * multicast, reserved, and IPv6 prefixes that lead to an IPv4 address or a local network.
 * What the worker connects to for a tenant (webhooks, Kubernetes API servers) is checked against it.
 */
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
  // IPv4-compatible (deprecated, RFC 4291): `::a.b.c.d` may be tunnelled to the IPv4 address; it holds `::` and `::1` too.
  ['::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated by RFC 3879, never public): some networks still route it inside.
  ['fec0::', 10],
  ['ff00::', 8],
  // NAT64, the well-known prefix (RFC 6052) and the local-use one (RFC 8215): both reach an IPv4 address, private ones included.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  // Teredo (RFC 4380): the address embeds IPv4 addresses a Teredo relay would tunnel to; no server endpoint lives there.
  ['2001::', 32],
  // 6to4 (RFC 3056): embeds an IPv4 address, as above.
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

/** Whether a connection may be made to an address (an IP address, never a name). */
export type AddressPolicy = (address: string) => boolean;

/** The error a refused connection fails with, made by the caller so each use reports it its own way. */
export type RefusalOf = (address: string) => Error;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for an HTTP agent: the addresses it answers are the ones the socket connects to, so the
 * check cannot be raced by a second resolution (DNS rebinding). A name with any refused address is
 * refused as a whole.
 */
export function guardedLookup(permits: AddressPolicy, refusal: RefusalOf) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      const refused = addresses.find((a) => !permits(a.address));
      if (refused || addresses.length === 0) {
        callback(refusal(refused?.address ?? hostname), []);
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

/** The IP address a host names literally (URL brackets dropped), or undefined for a name. */
export function literalAddress(host: string): string | undefined {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) !== 0 ? bare : undefined;
}

/**
 * An HTTPS agent that connects only where the policy permits: a name is judged by the addresses its
 * lookup answers, and an address is judged before connecting (Node looks none up). Every connection
 * goes through it, a redirect's too.
 */
export class GuardedAgent extends Agent {
  constructor(
    options: AgentOptions,
    private readonly permits: AddressPolicy,
    private readonly refusal: RefusalOf,
  ) {
    super({ ...options, lookup: guardedLookup(permits, refusal) });
  }

  override createConnection(options: RequestOptions, callback?: (error: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const literal = literalAddress(options.host ?? '');
    if (literal !== undefined && !this.permits(literal)) {
      // Node's agent takes an error without a stream through the callback and fails the request with it.
      const fail = callback as ((error: Error) => void) | undefined;
      fail?.(this.refusal(literal));
      return undefined;
    }
    return super.createConnection(options, callback);
  }
}
