import type { AddressInfo } from 'node:net';
import { Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger } from '@wrs/observability';
import { ANSWER_HEADERS } from '@wrs/problem';
import {
  assertRawAnswerInContract,
  contractValidator,
  rawExchange,
  sendRequest,
  type ObservedResponse,
  type RawAnswer,
} from '@wrs/testing';
import { createHttpService } from './create-http-service';

@Module({})
class NoRoutesModule {}

/**
 * docs/security.md: every answer of the api and the relay carries nosniff, HSTS and CORP. Also the ones
 * no middleware writes: the socket-level guard's (raw sockets: what fetch cannot send) and
 * ingress-nginx's error page, answered before the answer-headers middleware.
 */
describe('the answers given before any route carry the headers every answer carries', () => {
  const WAIT_MS = 10_000;
  let app: NestExpressApplication;
  let origin: string;
  let port: number;

  beforeAll(async () => {
    app = await createHttpService(NoRoutesModule, {
      logger: createLogger('api', 'silent'),
      prefix: 'api/v1',
      operations: [{ method: 'get', template: '/version' }],
      produces: ['application/json', 'application/problem+json'],
      bodyLimitBytes: 1024,
      ingressDefaultBackend: true,
      edge: { headersTimeoutMs: 300, requestTimeoutMs: 600, trustedProxies: 'loopback' },
    });
    await app.listen(0, '127.0.0.1');
    origin = await app.getUrl();
    port = (app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(() => app.close());

  function expectAnswerHeaders(answer: Pick<ObservedResponse, 'headers'> | undefined): void {
    const carried = Object.fromEntries(Object.keys(ANSWER_HEADERS).map((name) => [name, answer?.headers.get(name)]));
    expect(carried).toEqual({
      'X-Content-Type-Options': 'nosniff',
      'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
  }

  it('an answer through the middleware (the reference the others are held to)', async () => {
    const res = await sendRequest('GET', `${origin}/api/v1/nothing`);
    expect(res.status).toBe(404);
    expectAnswerHeaders(res);
  });

  it.each([
    ['broken HTTP', 'GET /api/v1/version HTTP/9.9.9\r\n\r\n', 400, 'bad_request'],
    [
      'Content-Length with Transfer-Encoding',
      'POST /api/v1/version HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'bad_request',
    ],
    [
      'headers too large',
      `GET /api/v1/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`,
      431,
      'request_header_fields_too_large',
    ],
    ['headers that stop half way', 'GET /api/v1/version HTTP/1.1\r\nHost: x\r\n', 408, 'request_timeout'],
    ['no Host', 'GET /api/v1/version HTTP/1.1\r\n\r\n', 400, 'bad_request'],
    ['two Host lines', 'GET /api/v1/version HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n', 400, 'bad_request'],
    [
      'Expect other than 100-continue',
      'POST /api/v1/version HTTP/1.1\r\nHost: x\r\nExpect: 999\r\nContent-Length: 2\r\n\r\n{}',
      417,
      'expectation_failed',
    ],
  ])('%s: a problem on the socket, with them', async (_name, request, status, code) => {
    const { answer, connection } = await rawExchange(port, request, WAIT_MS);
    connection.destroy();
    expect({ status: answer?.status, code: (answer?.body as { code?: string } | undefined)?.code }).toEqual({ status, code });
    assertRawAnswerInContract('GET', '/version', answer as RawAnswer);
    expectAnswerHeaders(answer);
  });

  it('CONNECT: 405 on the socket, with them', async () => {
    const { answer, connection } = await rawExchange(port, 'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n', WAIT_MS);
    connection.destroy();
    expect(answer?.status).toBe(405);
    contractValidator().assertOutsideContract('CONNECT', '/', answer as RawAnswer);
    expectAnswerHeaders(answer);
  });

  it("ingress-nginx's error page (GET / with X-Code: 503), with them", async () => {
    const res = await sendRequest('GET', `${origin}/`, { headers: { 'x-code': '503', 'x-request-id': 'ingress-1' } });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'dependency_unavailable', requestId: 'ingress-1' });
    expectAnswerHeaders(res);
  });
});
