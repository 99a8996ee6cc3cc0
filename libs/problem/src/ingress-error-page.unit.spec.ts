import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { ingressErrorPageMiddleware } from './ingress-error-page';
import { requestIdMiddleware } from './request-id';

/** What ingress-nginx receives from its default backend for a custom error, over a real socket. */
describe('the ingress error page', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use(requestIdMiddleware, ingressErrorPageMiddleware, (_req, res) => res.status(404).end('next'));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each([
    ['413', 413, 'payload_too_large'],
    ['503', 503, 'dependency_unavailable'],
    ['504', 504, 'upstream_timeout'],
  ])('X-Code %s on / is a %s problem with the request id nginx passes', async (xCode, status, code) => {
    const res = await fetch(`${base}/`, { headers: { 'x-code': xCode, 'x-request-id': 'nginx-req-1', 'x-format': 'text/html' } });
    expect([res.status, res.headers.get('content-type')]).toEqual([status, 'application/problem+json']);
    expect(await res.json()).toMatchObject({ status, code, requestId: 'nginx-req-1' });
  });

  it('anything else passes on', async () => {
    expect((await fetch(`${base}/api/v1/version`, { headers: { 'x-code': '413' } })).status).toBe(404);
    expect((await fetch(`${base}/`, { headers: { 'x-code': '200' } })).status).toBe(404);
  });
});
