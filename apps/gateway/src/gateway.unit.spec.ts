import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createGateway, roundPauseMs } from './gateway';

/** The gateway between real sockets: a stand-in upstream that records what reached it, and raw clients. */
describe('gateway forwarding (http-proxy-3)', () => {
  let upstream: Server;
  let gateway: Server;
  let seen: IncomingHttpHeaders[];
  let base: { port: number };

  beforeAll(async () => {
    seen = [];
    upstream = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === '/api/v1/too-large') {
        // Answers before reading the body, as the api's body limit does.
        res.writeHead(413, { 'content-type': 'application/problem+json' });
        res.end('{"code":"payload_too_large"}');
        return;
      }
      if (req.url?.endsWith('/events')) {
        // A stream that (wrongly) insists on keep-alive and names a hop-by-hop header of its own.
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          connection: 'keep-alive, x-upstream-private',
          'x-upstream-private': '1',
          'keep-alive': 'timeout=77',
        });
        res.end('id: 1\nevent: run.created\ndata: {}\n\n');
        return;
      }
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    await listen(upstream);
    const url = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    gateway = createGateway({ upstreams: { api: [url], relay: [url] } });
    await listen(gateway);
    base = { port: (gateway.address() as AddressInfo).port };
  });

  afterAll(async () => {
    gateway.closeAllConnections();
    upstream.closeAllConnections();
    await Promise.all([close(gateway), close(upstream)]);
  });

  it("keeps one client's Connection: close on a stream from breaking the next clients' requests (20 rounds)", async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 20; round++) {
      statuses.push((await get(base.port, '/api/v1/runs/a/events', { connection: 'close' })).status);
      statuses.push((await get(base.port, '/api/v1/runs/b/events', {})).status);
      statuses.push((await get(base.port, '/api/v1/version', {})).status);
    }
    expect(statuses).toEqual(Array.from({ length: 60 }, () => 200));
  });

  it('passes no hop-by-hop header either way, and sets X-Forwarded-* itself', async () => {
    seen.length = 0;
    const answer = await get(base.port, '/api/v1/runs/c/events', {
      connection: 'keep-alive, x-client-private',
      'x-client-private': 'secret',
      'keep-alive': 'timeout=99',
      te: 'trailers',
      'proxy-authorization': 'Basic Zm9vOmJhcg==',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '10.9.9.9',
    });
    const reached = seen[0] ?? {};
    for (const name of ['x-client-private', 'keep-alive', 'te', 'proxy-authorization']) {
      expect(reached[name]).toBeUndefined();
    }
    expect(reached['x-forwarded-for']).toBe('127.0.0.1');
    expect(reached['x-forwarded-proto']).toBe('http');
    expect(reached['x-forwarded-host']).toBe(`127.0.0.1:${base.port}`);
    expect(answer.headers['x-upstream-private']).toBeUndefined();
    expect(answer.headers['keep-alive']).not.toBe('timeout=77'); // the gateway's own Node server may set its own
    expect(answer.body).toContain('event: run.created');
  });

  it('answers an early 413 and then closes the connection cleanly instead of leaving it hanging', async () => {
    const socket = connect(base.port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined); // the server may reset what it no longer reads
    const ended = once(socket, 'close');
    // Announces 5 MiB and sends a little of it: the upstream answers at once.
    socket.write(
      `POST /api/v1/too-large HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n{"a":"`,
    );
    socket.write('x'.repeat(64 * 1024));
    await ended;
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received.toLowerCase()).toContain('connection: close');
    // And the edge serves the next client as usual.
    expect((await get(base.port, '/api/v1/version', {})).status).toBe(200);
  });
});

/** The gateway's pooled sockets to an upstream, and the upstream's own idle close. */
describe('gateway upstream keep-alive', () => {
  it("retires an idle pooled socket before the upstream's Keep-Alive hint runs out, instead of waiting to be closed", async () => {
    // An upstream that announces a 2 s idle limit but never closes itself: only the gateway can.
    const upstream = createServer((_req, res) => {
      res.writeHead(200, { 'keep-alive': 'timeout=2', 'content-type': 'text/plain' });
      res.end('ok');
    });
    upstream.keepAliveTimeout = 0;
    const closed: number[] = [];
    upstream.on('connection', (socket) => socket.on('close', () => closed.push(Date.now())));
    await listen(upstream);
    const url = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    const gateway = createGateway({ upstreams: { api: [url], relay: [url] } });
    await listen(gateway);
    try {
      const answered = Date.now();
      expect((await get((gateway.address() as AddressInfo).port, '/api/v1/version', {})).status).toBe(200);
      // 1 s before the hint's 2 s; without the agent's timeout the socket stayed open for good.
      await new Promise((r) => setTimeout(r, 2500));
      expect(closed).toHaveLength(1);
      expect(closed[0]! - answered).toBeLessThan(2000);
    } finally {
      gateway.closeAllConnections();
      upstream.closeAllConnections();
      await Promise.all([close(gateway), close(upstream)]);
    }
  });
});

/** While every replica refuses connections (all restarting), a bodiless request is held for the whole grace. */
describe('gateway while every replica restarts', () => {
  const GRACE_MS = 2000;

  /** Ports that refuse connections: bound by this process, then closed. */
  async function refusingUrls(count: number): Promise<URL[]> {
    const servers = Array.from({ length: count }, () => createServer());
    await Promise.all(servers.map(listen));
    const urls = servers.map((s) => new URL(`http://127.0.0.1:${(s.address() as AddressInfo).port}`));
    await Promise.all(servers.map(close));
    return urls;
  }

  async function gatewayTo(relays: URL[]): Promise<{ gateway: Server; port: number }> {
    const gateway = createGateway({ upstreams: { api: relays, relay: relays }, limits: { restartGraceMs: GRACE_MS } });
    await listen(gateway);
    return { gateway, port: (gateway.address() as AddressInfo).port };
  }

  it('serves from a replica that comes back late in the grace, even with many replicas (tries are spread over it)', async () => {
    // Ten replicas: a fixed 200 ms between rounds spent all 30 tries in 0.4 s.
    const relays = await refusingUrls(10);
    const { gateway, port } = await gatewayTo(relays);
    const back = createServer((_req, res) => res.end('back'));
    const comesBack = new Promise<void>((resolve) =>
      setTimeout(() => back.listen(Number(relays[3]!.port), '127.0.0.1', () => resolve()), GRACE_MS * 0.6),
    );
    try {
      const answer = await get(port, '/api/v1/runs/r/events', {});
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: 'back' });
    } finally {
      await comesBack;
      await Promise.all([close(back), close(gateway)]);
    }
  });

  it('answers 503 once the grace has passed, not before', async () => {
    const { gateway, port } = await gatewayTo(await refusingUrls(2));
    const started = Date.now();
    try {
      expect((await get(port, '/api/v1/runs/r/events', {})).status).toBe(503);
      expect(Date.now() - started).toBeGreaterThanOrEqual(GRACE_MS - 100);
    } finally {
      await close(gateway);
    }
  });

  it('spreads the rounds over the grace: 200 ms at least, longer when many replicas share the 30 tries', () => {
    expect(roundPauseMs(1, 5000)).toBe(200);
    expect(roundPauseMs(2, 5000)).toBe(358);
    expect(roundPauseMs(10, 5000)).toBe(2500);
  });
});

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function get(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
