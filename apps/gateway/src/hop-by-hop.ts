import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** Headers that describe one connection (RFC 9110, 7.6.1), never the message: a proxy must not pass them on. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * A copy of the headers without the hop-by-hop ones and without every header the `Connection` header
 * names: one client's `Connection: close` must not reach a socket the next client's request reuses.
 */
export function withoutHopByHop<T extends IncomingHttpHeaders | OutgoingHttpHeaders>(headers: T): T {
  const named = String(headers['connection'] ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token.length > 0);
  const drop = new Set([...HOP_BY_HOP, ...named]);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase()))) as T;
}
