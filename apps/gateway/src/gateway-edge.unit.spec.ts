import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EdgeAnswer } from '@wrs/problem';
import { assertRawAnswerInContract, contractValidator, rawExchange, RawConnection, type RawAnswer } from '@wrs/testing';
import { createGateway } from './gateway';

/**
 * The gateway's own answers over raw sockets, with short bounds: every one a problem in the contract,
 * reported (log line and metric), and the next client unaffected. Waits are generous multiples of the
 * bounds: a loaded machine may be slow, never fast.
 */
describe('gateway edge answers', () => {
  const LIMITS = { headersTimeoutMs: 300, requestTimeoutMs: 600, idleTimeoutMs: 1500, upstreamIdleTimeoutMs: 1000, restartGraceMs: 200 };
  const WAIT_MS = 10_000;
  let upstream: Server;
  let gateway: Server;
  let port: number;
  const reported: EdgeAnswer[] = [];
  /** Every request line the upstream received, as method and path. */
  const upstreamSaw: string[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      upstreamSaw.push(`${req.method} ${req.url}`);
      if (req.url === '/api/v1/version') {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{}');
        });
      } else if (req.url === '/api/v1/runs/silent/events') {
        // Never answers: the gateway's upstream bound must.
      } else if (req.url === '/api/v1/runs/steady/events') {
        // A stream that sends every 100 ms for well over the idle bounds: only silence may cut it.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let sent = 0;
        const timer = setInterval(() => {
          res.write(`: heartbeat ${sent}\n\n`);
          if (++sent === 30) {
            clearInterval(timer);
            res.end('id: 1\nevent: run.created\ndata: {}\n\n');
          }
        }, 100);
        res.on('close', () => clearInterval(timer));
      } else if (req.url === '/api/v1/runs') {
        // An early answer, before reading the body, as the api's media-type check gives one.
        res.writeHead(415, { 'content-type': 'application/problem+json', 'x-request-id': 'r' });
        res.end(
          '{"type":"urn:workload-run-service:problem:unsupported_media_type","title":"t","status":415,"code":"unsupported_media_type","requestId":"r","retryable":false}',
        );
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    gateway = createGateway({ upstreams: { api: [url], relay: [url] }, limits: LIMITS, onEdgeAnswer: (a) => reported.push(a) });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    port = (gateway.address() as AddressInfo).port;
  });

  afterAll(async () => {
    gateway.closeAllConnections();
    upstream.closeAllConnections();
    await Promise.all([new Promise((r) => gateway.close(r)), new Promise((r) => upstream.close(r))]);
  });

  async function nextClientServed(): Promise<void> {
    const { answer, connection } = await rawExchange(port, 'GET /api/v1/version HTTP/1.1\r\nHost: x\r\n\r\n', WAIT_MS);
    connection.destroy();
    expect(answer?.status).toBe(200);
  }

  function expectProblem(answer: RawAnswer | undefined, status: number, code: string): RawAnswer {
    expect({ status: answer?.status, code: (answer?.body as { code?: string } | undefined)?.code }).toEqual({ status, code });
    expect(answer?.headers.get('content-type')).toBe('application/problem+json');
    return answer as RawAnswer;
  }

  it.each([
    ['headers that stop half way', 'GET /api/v1/version HTTP/1.1\r\nHost: x\r\n'],
    [
      'a body that stops half way',
      'POST /api/v1/version HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    ],
  ])('%s: 408 request_timeout, then the connection is closed', async (_name, request) => {
    const before = reported.length;
    const started = Date.now();
    const { answer, connection } = await rawExchange(port, request, WAIT_MS);
    assertRawAnswerInContract('GET', '/version', expectProblem(answer, 408, 'request_timeout'));
    expect(await connection.waitClosed(WAIT_MS)).toBe(true);
    expect(Date.now() - started).toBeLessThan(WAIT_MS);
    expect(reported.slice(before)).toEqual([expect.objectContaining({ code: 'request_timeout', status: 408 })]);
    await nextClientServed();
  });

  it('an upstream that stays silent: 504 upstream_timeout, reported', async () => {
    const before = reported.length;
    const { answer, connection } = await rawExchange(
      port,
      'GET /api/v1/runs/silent/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n',
      WAIT_MS,
    );
    connection.destroy();
    assertRawAnswerInContract('GET', '/runs/{runId}/events', expectProblem(answer, 504, 'upstream_timeout'));
    expect(reported.slice(before)).toEqual([
      expect.objectContaining({ code: 'upstream_timeout', reason: 'upstream_timeout', status: 504 }),
    ]);
  });

  it('a stream that keeps sending outlasts every idle bound (an idle bound, not a total one)', async () => {
    const { answer, connection } = await rawExchange(
      port,
      'GET /api/v1/runs/steady/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n',
      WAIT_MS,
    );
    connection.destroy();
    expect(answer?.status).toBe(200);
    expect(answer?.text).toContain('event: run.created'); // 3 s of stream through 1-1.5 s idle bounds
  });

  it.each([
    ['no Host', 'GET /api/v1/version HTTP/1.1\r\n\r\n', 400, 'bad_request', 'missing_host'],
    ['two Host lines', 'GET /api/v1/version HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n', 400, 'bad_request', 'duplicate_host'],
    [
      'Expect other than 100-continue',
      'POST /api/v1/version HTTP/1.1\r\nHost: x\r\nExpect: 999\r\nContent-Length: 2\r\n\r\n{}',
      417,
      'expectation_failed',
      'unsupported_expect',
    ],
    [
      'Content-Length with Transfer-Encoding',
      'POST /api/v1/version HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/v1/version HTTP/1.1\r\nHost: x\r\n\r\n',
      400,
      'bad_request',
      'parse_error',
    ],
    [
      'two Content-Lengths',
      'POST /api/v1/version HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd',
      400,
      'bad_request',
      'parse_error',
    ],
    ['broken HTTP', 'GET /api/v1/version HTTP/9.9.9\r\n\r\n', 400, 'bad_request', 'parse_error'],
  ])('%s: a problem, reported, the connection closed, the next client served', async (_name, request, status, code, reason) => {
    const before = reported.length;
    const { answer, connection } = await rawExchange(port, request, WAIT_MS);
    assertRawAnswerInContract('GET', '/version', expectProblem(answer, status, code));
    expect(await connection.waitClosed(WAIT_MS)).toBe(true);
    expect(reported.slice(before)).toEqual([expect.objectContaining({ code, reason, status })]);
    await nextClientServed();
  });

  /** A request that hides a second one in a body its method does not take (a smuggling attempt). */
  const smuggling = (method: string, framing: 'chunked' | 'length'): string => {
    const hidden = 'GET /api/v1/smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
    const body = framing === 'chunked' ? `${hidden.length.toString(16)}\r\n${hidden}\r\n0\r\n\r\n` : hidden;
    const header = framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${hidden.length}`;
    return `${method} /api/v1/version HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n${body}`;
  };

  it.each([
    ['GET', 'chunked'],
    ['GET', 'length'],
    ['HEAD', 'chunked'],
    ['DELETE', 'chunked'],
    ['DELETE', 'length'],
    ['OPTIONS', 'length'],
    ['TRACE', 'chunked'],
  ] as const)(
    'a %s with a body (%s) is refused, 400 bad_request: nothing of it reaches an upstream socket the next client reuses',
    async (method, framing) => {
      const before = reported.length;
      const seenBefore = upstreamSaw.length;
      const { answer, connection } = await rawExchange(port, smuggling(method, framing), WAIT_MS);
      if (method === 'HEAD') {
        expect(answer?.status).toBe(400);
      } else {
        assertRawAnswerInContract('GET', '/version', expectProblem(answer, 400, 'bad_request'));
      }
      expect(await connection.waitClosed(WAIT_MS)).toBe(true);
      expect(reported.slice(before)).toEqual([expect.objectContaining({ code: 'bad_request', reason: 'unexpected_body', status: 400 })]);
      await nextClientServed();
      expect(upstreamSaw.slice(seenBefore)).toEqual(['GET /api/v1/version']);
    },
  );

  it('a DELETE with Content-Length: 0 (no body) is forwarded as usual', async () => {
    const seenBefore = upstreamSaw.length;
    const { answer, connection } = await rawExchange(
      port,
      'DELETE /api/v1/runs/x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
      WAIT_MS,
    );
    connection.destroy();
    expect(answer?.status).toBe(404);
    expect(upstreamSaw.slice(seenBefore)).toEqual(['DELETE /api/v1/runs/x']);
  });

  it('CONNECT: 405 method_not_allowed with Allow (a reverse proxy is no tunnel), reported', async () => {
    const before = reported.length;
    const { answer, connection } = await rawExchange(port, 'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n', WAIT_MS);
    contractValidator().assertOutsideContract('CONNECT', '/', expectProblem(answer, 405, 'method_not_allowed'));
    expect(await connection.waitClosed(WAIT_MS)).toBe(true);
    expect(reported.slice(before)).toEqual([expect.objectContaining({ code: 'method_not_allowed', reason: 'connect_method' })]);
    await nextClientServed();
  });

  it('an early answer to a complete request leaves the connection usable (20 rounds)', async () => {
    const connection = await RawConnection.open(port);
    try {
      for (let round = 0; round < 20; round++) {
        connection.write('POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello');
        expect((await connection.nextAnswer(WAIT_MS))?.status).toBe(415);
        connection.write('GET /api/v1/version HTTP/1.1\r\nHost: x\r\n\r\n');
        expect((await connection.nextAnswer(WAIT_MS))?.status).toBe(200);
      }
    } finally {
      connection.destroy();
    }
  });
});
