import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from './clock';
import { WrsApiError, WrsNetworkError } from './errors';
import { Transport } from './transport';

/** A virtual clock: sleeping advances time at once and is recorded, so bounds are checked without waiting. */
function virtualClock(): Clock & { sleeps: number[]; elapsed: () => number } {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    elapsed: () => now - 1_000_000,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

/** A loopback server that answers every request the same way and remembers what it was sent. */
async function answering(
  status: number,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ url: string; seen: IncomingHttpHeaders[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.writeHead(status, { 'content-type': 'application/problem+json', ...headers }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, seen, server };
}

const problem = (status: number, code: string, retryable: boolean) => ({
  type: `urn:x:${code}`,
  title: code,
  status,
  code,
  requestId: 'server-id',
  retryable,
});
const keyedCreate = {
  method: 'POST',
  path: '/runs',
  body: {},
  headers: { 'idempotency-key': 'k-1' },
  accept: 'application/json',
  authenticated: true,
  retrySafe: true,
} as const;

describe("the transport's retry loop, with a virtual clock and a real socket", () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('keeps retrying a 429 no sooner than Retry-After, and gives up within the total-time bound', async () => {
    const { url, seen, server } = await answering(429, { 'retry-after': '7' }, problem(429, 'rate_limited', true));
    servers.push(server);
    const clock = virtualClock();
    const transport = new Transport({
      baseUrl: url,
      token: 't0ken',
      clock,
      random: () => 0.99,
      retry: { maxAttempts: 100, baseDelayMs: 100, maxDelayMs: 1000, maxElapsedMs: 30_000 },
    });
    const error = await transport.send(keyedCreate).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrsApiError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', requestId: 'server-id', attempts: 5 });
    expect(clock.sleeps).toEqual([7000, 7000, 7000, 7000]);
    expect(clock.elapsed()).toBeLessThanOrEqual(30_000);
    expect(new Set(seen.map((h) => h['idempotency-key']))).toEqual(new Set(['k-1']));
  });

  it('stops at maxAttempts when time is not the limit; full jitter stays under the doubling ceiling', async () => {
    const { url, seen, server } = await answering(503, {}, problem(503, 'dependency_unavailable', true));
    servers.push(server);
    const clock = virtualClock();
    const transport = new Transport({
      baseUrl: url,
      token: 't0ken',
      clock,
      random: () => 0.5,
      retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 10_000, maxElapsedMs: 60_000 },
    });
    await expect(transport.send(keyedCreate)).rejects.toMatchObject({ status: 503, attempts: 4 });
    expect(seen).toHaveLength(4);
    expect(clock.sleeps).toEqual([50, 100, 200]);
  });

  it('does not retry what may not be retried: a 5xx without retryable, or any failure of a request that is neither safe nor keyed', async () => {
    const fatal = await answering(500, {}, problem(500, 'internal_error', false));
    servers.push(fatal.server);
    const clock = virtualClock();
    await expect(new Transport({ baseUrl: fatal.url, token: 't0ken', clock }).send(keyedCreate)).rejects.toMatchObject({
      status: 500,
      attempts: 1,
    });
    const limited = await answering(429, { 'retry-after': '1' }, problem(429, 'rate_limited', true));
    servers.push(limited.server);
    await expect(
      new Transport({ baseUrl: limited.url, token: 't0ken', clock }).send({ ...keyedCreate, retrySafe: false }),
    ).rejects.toMatchObject({ status: 429, attempts: 1 });
    expect(clock.sleeps).toEqual([]);
  });

  it('reports a refused connection at once, without retries (the spec retries 429 and retryable 5xx answers), and without the token', async () => {
    // A port just given back: nothing listens there (port 9 will not do: fetch refuses it as a bad port).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const clock = virtualClock();
    const transport = new Transport({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      token: 'secret-t0ken',
      clock,
      random: () => 0,
      retry: { maxAttempts: 3 },
    });
    const error = (await transport.send(keyedCreate).catch((e: unknown) => e)) as WrsNetworkError;
    expect(error).toBeInstanceOf(WrsNetworkError);
    expect(error.attempts).toBe(1);
    expect(clock.sleeps).toEqual([]);
    expect(error.message).toContain(`nothing listens at http://127.0.0.1:${port}/api/v1; not retried`);
    expect(error.message).not.toContain('secret-t0ken');
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports a port fetch never connects to (WHATWG bad port) at once, without retries', async () => {
    const clock = virtualClock();
    const transport = new Transport({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      token: 'secret-t0ken',
      clock,
      random: () => 0,
      retry: { maxAttempts: 3 },
    });
    const error = (await transport.send(keyedCreate).catch((e: unknown) => e)) as WrsNetworkError;
    expect(error).toBeInstanceOf(WrsNetworkError);
    expect(error.attempts).toBe(1);
    expect(clock.sleeps).toEqual([]);
    expect(error.message).toContain('not retried');
  });

  it('refuses a base URL that carries credentials or a query, without echoing it', () => {
    for (const bad of ['http://user:secret@127.0.0.1/api/v1', 'http://127.0.0.1/api/v1?access_token=secret']) {
      expect(() => new Transport({ baseUrl: bad })).toThrow(/must not carry credentials/);
      expect(() => new Transport({ baseUrl: bad })).not.toThrow(/secret/);
    }
  });
});
