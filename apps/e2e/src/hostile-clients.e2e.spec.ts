import { randomUUID } from 'node:crypto';
import { assertRawAnswerInContract, contractValidator, patience, rawExchange, RawConnection, type RawAnswer } from '@wrs/testing';
import { startStack, terminalRun, type StackFixture } from './stack-fixture';

/**
 * Hostile and careless clients on raw TCP against the base URL (gateway) and the api and relay
 * directly, with short edge timeouts: every answer a problem (checked against the contract), nothing
 * held past its bound, and the next client unaffected. Waits are generous: a loaded machine is slow.
 */
describe('hostile clients at the edge', () => {
  const HEADERS_TIMEOUT_MS = 1000;
  const REQUEST_TIMEOUT_MS = 2000;
  const WAIT_MS = patience(20_000);
  let f: StackFixture;
  let token: string;

  beforeAll(async () => {
    f = await startStack(['ws-x', 'ws-y'], {
      GATEWAY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      GATEWAY_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    });
    token = f.token('ws-x');
  }, patience(120_000));

  afterAll(async () => {
    await f?.stop();
  });

  const port = (target: string): number => f.stack.portOf(target) as number;
  const problemOf = (a: RawAnswer | undefined): { status?: number; code?: string } => ({
    status: a?.status,
    code: (a?.body as { code?: string } | undefined)?.code,
  });
  const version = 'GET /api/v1/version HTTP/1.1\r\nHost: x\r\n\r\n';

  async function nextClientServed(target: string): Promise<void> {
    const { answer, connection } = await rawExchange(
      port(target),
      target === 'stream-relay' ? 'GET /api/v1/runs/r/events HTTP/1.1\r\nHost: x\r\n\r\n' : version,
      WAIT_MS,
    );
    connection.destroy();
    expect(answer?.status).toBe(target === 'stream-relay' ? 401 : 200);
  }

  describe.each(['gateway', 'api', 'stream-relay'])('%s', (target) => {
    // The relay reads no bodies (it answers a POST 405 at once): only slow headers apply to it.
    const slow: [string, string, number][] = [['slow headers', 'GET /api/v1/version HTTP/1.1\r\nHost: x\r\n', HEADERS_TIMEOUT_MS]];
    if (target !== 'stream-relay') {
      slow.push([
        'a half-sent body',
        'POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nAuthorization: Bearer TOKEN\r\nContent-Length: 100\r\n\r\n{"work',
        REQUEST_TIMEOUT_MS,
      ]);
    }
    it.each(slow)('%s: 408 request_timeout, the connection closed, the next client served', async (_name, request, bound) => {
      const started = Date.now();
      const { answer, connection } = await rawExchange(port(target), request.replace('TOKEN', token), WAIT_MS);
      expect(problemOf(answer)).toEqual({ status: 408, code: 'request_timeout' });
      assertRawAnswerInContract('GET', '/version', answer as RawAnswer);
      expect(await connection.waitClosed(WAIT_MS)).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(bound - 100);
      await nextClientServed(target);
    });

    it.each([
      ['no Host', 'GET /api/v1/version HTTP/1.1\r\n\r\n', 400, 'bad_request'],
      [
        'Expect: 999',
        'POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nExpect: 999\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
        417,
        'expectation_failed',
      ],
      [
        'Content-Length with Transfer-Encoding (smuggling)',
        `POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${version}`,
        400,
        'bad_request',
      ],
      [
        'two Content-Lengths (smuggling)',
        `POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}${version}`,
        400,
        'bad_request',
      ],
    ])('%s: one problem, then the connection is closed (nothing smuggled is answered)', async (_name, request, status, code) => {
      const { answer, connection } = await rawExchange(port(target), request, WAIT_MS);
      expect(problemOf(answer)).toEqual({ status, code });
      assertRawAnswerInContract('POST', '/runs', answer as RawAnswer);
      expect(await connection.nextAnswer(WAIT_MS)).toBeUndefined();
      expect(connection.closed).toBe(true);
      await nextClientServed(target);
    });

    it('CONNECT: 405 method_not_allowed, then closed', async () => {
      const { answer, connection } = await rawExchange(
        port(target),
        'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n',
        WAIT_MS,
      );
      expect(problemOf(answer)).toEqual({ status: 405, code: 'method_not_allowed' });
      contractValidator().assertOutsideContract('CONNECT', '/', answer as RawAnswer);
      expect(await connection.waitClosed(WAIT_MS)).toBe(true);
      await nextClientServed(target);
    });

    it('a client that aborts half way does not disturb the next one', async () => {
      for (let i = 0; i < 5; i++) {
        const connection = await RawConnection.open(port(target));
        connection.write(
          `POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"wor`,
        );
        connection.destroy();
        await nextClientServed(target);
      }
    });
  });

  describe.each(['gateway', 'api'])('%s: early answers, then the connection', (target) => {
    it.each([
      [
        '415 unsupported_media_type',
        `POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nIdempotency-Key: k1\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello`,
        415,
        'POST',
        '/runs',
      ],
      ['405 method_not_allowed', 'DELETE /api/v1/version HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n', 405, undefined, undefined],
      [
        '400 credential_in_url',
        'GET /api/v1/workspaces/current?access_token=abc HTTP/1.1\r\nHost: x\r\n\r\n',
        400,
        'GET',
        '/workspaces/current',
      ],
    ])(
      '%s on a complete request: the same connection serves the next request (20 rounds)',
      async (_name, request, status, method, template) => {
        const connection = await RawConnection.open(port(target));
        try {
          for (let round = 0; round < 20; round++) {
            connection.write(request.replace('TOKEN', token));
            const early = await connection.nextAnswer(WAIT_MS);
            expect(early?.status).toBe(status);
            if (method && template) {
              assertRawAnswerInContract(method, template, early as RawAnswer);
            } else {
              contractValidator().assertOutsideContract('DELETE', '/version', early as RawAnswer);
            }
            connection.write(version);
            expect((await connection.nextAnswer(WAIT_MS))?.status).toBe(200);
          }
        } finally {
          connection.destroy();
        }
      },
    );

    it('413 while the body is still arriving: a problem, then the connection is closed, and the next client served', async () => {
      const connection = await RawConnection.open(port(target));
      connection.write(
        `POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: ${randomUUID()}\r\nContent-Type: application/json\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n{"a":"`,
      );
      connection.write('x'.repeat(128 * 1024));
      const answer = await connection.nextAnswer(WAIT_MS);
      expect(problemOf(answer)).toEqual({ status: 413, code: 'payload_too_large' });
      assertRawAnswerInContract('POST', '/runs', answer as RawAnswer);
      expect(await connection.waitClosed(WAIT_MS)).toBe(true);
      await nextClientServed(target);
    });
  });

  it("one client's Connection: close on its stream never breaks another workspace's streams (20 rounds, 0 failures)", async () => {
    const other = f.token('ws-y');
    const runOf = async (t: string): Promise<string> => {
      const res = await f.client.call('POST /runs', '/runs', {
        token: t,
        headers: { 'idempotency-key': randomUUID() },
        body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '10' } }, provider: 'auto', region: 'auto' },
      });
      expect(res.status).toBe(201);
      return (res.body as { id: string }).id;
    };
    const [a, b] = [await runOf(token), await runOf(other)];
    await Promise.all([terminalRun(f, a, token), terminalRun(f, b, other)]);
    const stream = (run: string, t: string, close: boolean): string =>
      `GET /api/v1/runs/${run}/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${t}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
    const failures: string[] = [];
    for (let round = 0; round < 20; round++) {
      for (const [run, t, close] of [
        [a, token, true],
        [b, other, false],
      ] as const) {
        const { answer, connection } = await rawExchange(port('gateway'), stream(run, t, close), WAIT_MS);
        connection.destroy();
        if (answer?.status !== 200 || !answer.text.includes('event: run.succeeded')) {
          failures.push(`round ${round} ${close ? 'X' : 'Y'}: ${answer?.status} ${answer?.text.slice(0, 200)}`);
        }
        if (answer) {
          assertRawAnswerInContract('GET', '/runs/{runId}/events', { ...answer, text: '', body: undefined, bodyUnread: true });
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('every edge answer was counted by the process that gave it', async () => {
    for (const service of ['gateway', 'api', 'stream-relay']) {
      const metrics = await (await fetch(`http://127.0.0.1:${f.stack.metricsPortOf(service)}/metrics`)).text();
      expect(metrics).toMatch(/wrs_edge_answers_total\{code="request_timeout",reason="request_timeout"[^}]*\} [1-9]/);
      expect(metrics).toMatch(/wrs_edge_answers_total\{code="bad_request",reason="parse_error"[^}]*\} [1-9]/);
    }
    expect(f.logs.filter((line) => line.includes('"msg":"edge answer"')).length).toBeGreaterThan(10);
  });
});
