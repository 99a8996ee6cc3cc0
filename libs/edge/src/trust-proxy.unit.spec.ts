import type { AddressInfo } from 'node:net';
import { trustProxySetting } from '@wrs/config';
import express from 'express';

/** The client address Express gives a request with this X-Forwarded-For, over a real socket from loopback. */
async function clientAddress(trustedProxies: string, forwardedFor: string): Promise<string> {
  const app = express().set('trust proxy', trustProxySetting(trustedProxies));
  app.get('/', (req, res) => res.send(req.ip));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await (await fetch(`http://127.0.0.1:${port}/`, { headers: { 'x-forwarded-for': forwardedFor } })).text();
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('TRUSTED_PROXIES', () => {
  it('as a hop count takes the address the nearest proxy appended, whatever the client put before it', async () => {
    // Envoy appends the peer to the client's own header: a client in a private range cannot pick its address.
    expect(await clientAddress('1', '6.6.6.6, 10.0.3.4')).toBe('10.0.3.4');
    expect(await clientAddress('1', '6.6.6.6, 198.51.100.7')).toBe('198.51.100.7');
    // ingress-nginx replaces the header with the peer.
    expect(await clientAddress('1', '198.51.100.7')).toBe('198.51.100.7');
    // Two hops: a load balancer in front of the ingress.
    expect(await clientAddress('2', '6.6.6.6, 198.51.100.7, 10.0.3.4')).toBe('198.51.100.7');
  });

  it('as addresses or ranges trusts each listed hop anywhere in the header', async () => {
    expect(await clientAddress('loopback', '198.51.100.7')).toBe('198.51.100.7');
    expect(await clientAddress('loopback, 10.0.0.0/8', '6.6.6.6, 10.0.3.4')).toBe('6.6.6.6');
    expect(await clientAddress('10.0.0.0/8', '198.51.100.7')).toBe('127.0.0.1');
  });
});
