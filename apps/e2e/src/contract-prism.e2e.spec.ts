import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  eventually,
  prismProblems,
  prismViolationsOf,
  sendRequest,
  startPrismProxy,
  type CallOptions,
  type ObservedResponse,
  type PrismProxy,
} from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

const CONTRACT = join(__dirname, '..', '..', '..', 'libs', 'contracts', 'openapi.yaml');

type Run = { id: string; state: string; terminal: boolean; version: number };

/** One request through Prism; any violation Prism reports for it fails the test at once. */
async function through(proxy: PrismProxy, method: string, path: string, call: CallOptions = {}): Promise<ObservedResponse> {
  const exchange = await sendRequest(method, `${proxy.url}${path}`, call);
  expect({ call: `${method} ${path}`, violations: prismViolationsOf(exchange.headers, exchange.body) }).toEqual({
    call: `${method} ${path}`,
    violations: [],
  });
  return exchange;
}

describe('the contract, checked by Prism (an independent validator) in front of the running stack', () => {
  let f: StackFixture;
  let token: string;
  /** Validates requests and responses: for the requests the contract allows. */
  let strict: PrismProxy;
  /** Validates responses only: for requests that break the contract on purpose, to check the server's answer. */
  let lenient: PrismProxy;

  beforeAll(async () => {
    f = await startStack(['ws-prism', 'ws-prism-other']);
    token = f.token('ws-prism');
    [strict, lenient] = await Promise.all([
      startPrismProxy({ contractFile: CONTRACT, upstream: f.stack.baseUrl }),
      startPrismProxy({ contractFile: CONTRACT, upstream: f.stack.baseUrl, validateRequest: false }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([strict?.stop(), lenient?.stop()]);
    await f?.stop();
  });

  const workload = (env: Record<string, string> = {}): object => ({ image: 'busybox:1.36', args: ['echo', 'hi'], env });
  const createBody = (env: Record<string, string> = {}): object => ({ workload: workload(env), provider: 'auto', region: 'auto' });

  async function create(env: Record<string, string> = {}, key = randomUUID()): Promise<Run> {
    const res = await through(strict, 'POST', '/runs', { token, headers: { 'idempotency-key': key }, body: createBody(env) });
    expect(res.status).toBe(201);
    return res.body as Run;
  }

  /** Polls through Prism, so every intermediate state it answers is validated too. */
  function terminal(id: string): Promise<Run> {
    return eventually(
      async () => {
        const res = await through(strict, 'GET', `/runs/${id}`, { token });
        expect(res.status).toBe(200);
        const run = res.body as Run;
        return run.terminal ? run : undefined;
      },
      20_000,
      `run ${id} to end`,
    );
  }

  it('GET /version and GET /workspaces/current', async () => {
    expect((await through(strict, 'GET', '/version')).status).toBe(200);
    expect((await through(strict, 'GET', '/workspaces/current', { token })).status).toBe(200);
  });

  it('creates a run, replays the create, reads it, lists it and reads the events of the finished run', async () => {
    const key = randomUUID();
    const run = await create({ SIM_DURATION_MS: '50', SIM_LOG_LINES: '2' }, key);
    const replay = await through(strict, 'POST', '/runs', {
      token,
      headers: { 'idempotency-key': key },
      body: createBody({ SIM_DURATION_MS: '50', SIM_LOG_LINES: '2' }),
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((replay.body as Run).id).toBe(run.id);

    expect((await terminal(run.id)).state).toBe('succeeded');
    const page = await through(strict, 'GET', '/runs?limit=5', { token });
    expect(page.status).toBe(200);
    expect((await through(strict, 'GET', `/runs?idempotencyKey=${key}`, { token })).status).toBe(200);
    expect((await through(strict, 'GET', '/runs?state=succeeded,failed&limit=2', { token })).status).toBe(200);

    const events = await through(strict, 'GET', `/runs/${run.id}/events`, { token });
    expect(events.status).toBe(200);
    expect(events.text).toContain('run.succeeded');
    const lastId = [...events.text.matchAll(/^id: ?(\d+)$/gm)].map((m) => m[1]).pop();
    expect(lastId).toBeDefined();
    const after = await through(strict, 'GET', `/runs/${run.id}/events`, { token, headers: { 'last-event-id': String(lastId) } });
    expect(after.status).toBe(204);
  });

  it('a failed run, with its failure and exit code', async () => {
    const run = await create({ SIM_DURATION_MS: '20', SIM_EXIT_CODE: '3' });
    expect((await terminal(run.id)).state).toBe('failed');
    const events = await through(strict, 'GET', `/runs/${run.id}/events`, { token });
    expect(events.text).toContain('run.failed');
  });

  it('cancels a run, and cancels it again once it has ended', async () => {
    const run = await create({ SIM_DURATION_MS: '600000' });
    const cancel = await through(strict, 'POST', `/runs/${run.id}:cancel`, { token });
    expect(cancel.status).toBe(202);
    expect((await terminal(run.id)).state).toBe('canceled');
    expect((await through(strict, 'POST', `/runs/${run.id}:cancel`, { token })).status).toBe(202);
    const events = await through(strict, 'GET', `/runs/${run.id}/events`, { token });
    expect(events.text).toContain('run.canceled');
  });

  it('answers errors as the contract declares them', async () => {
    const unknown = randomUUID();
    const cases: [PrismProxy, string, string, CallOptions, number][] = [
      [strict, 'GET', `/runs/${unknown}`, { token }, 404],
      [strict, 'GET', `/runs/${unknown}/events`, { token }, 404],
      [strict, 'POST', `/runs/${unknown}:cancel`, { token }, 404],
      [strict, 'GET', '/runs', { token, headers: { 'x-service-workspace-id': 'ws-prism-other' } }, 403],
      [strict, 'POST', '/runs', { token, headers: { 'idempotency-key': 'prism-conflict' }, body: createBody() }, 201],
      [strict, 'POST', '/runs', { token, headers: { 'idempotency-key': 'prism-conflict' }, body: createBody({ OTHER: '1' }) }, 409],
      [strict, 'GET', '/runs?cursor=bm90LW91cnM', { token }, 400],
      // Requests the contract forbids: Prism (validating responses only) forwards them to the server.
      [lenient, 'POST', '/runs', { token, headers: { 'idempotency-key': randomUUID() }, body: { workload: {} } }, 400],
      [lenient, 'POST', '/runs', { token, headers: { 'idempotency-key': randomUUID() }, body: '{"workload":' }, 400],
      [lenient, 'POST', '/runs', { token, body: createBody() }, 400],
      [lenient, 'POST', '/runs', { token, headers: { 'idempotency-key': randomUUID(), 'content-type': 'text/plain' }, body: 'x' }, 415],
      [lenient, 'GET', '/runs?limit=0', { token }, 400],
      [lenient, 'GET', '/runs?colour=blue', { token }, 400],
      [lenient, 'GET', `/runs/${unknown}/events`, { token, headers: { 'last-event-id': 'x' } }, 400],
      [lenient, 'GET', '/runs', { token, headers: { accept: 'application/xml' } }, 406],
      // A bearer token that is not a JWT: Prism checks only that a credential is there.
      [lenient, 'GET', '/runs', { headers: { authorization: 'Bearer not-a-token' } }, 401],
      [lenient, 'GET', '/workspaces/current', { headers: { authorization: 'Bearer a.b.c' } }, 401],
    ];
    for (const [proxy, method, path, call, status] of cases) {
      const res = await through(proxy, method, path, call);
      expect({ call: `${method} ${path}`, status: res.status }).toEqual({ call: `${method} ${path}`, status });
    }
  });

  // Last: stopping Prism makes its output complete, so a line logged after an answer is not missed.
  it('Prism logged no violation and no error of its own over the whole walk-through', async () => {
    await Promise.all([strict.stop(), lenient.stop()]);
    expect(prismProblems(strict.output())).toEqual([]);
    expect(prismProblems(lenient.output())).toEqual([]);
    expect(strict.output().filter((line) => line.includes('Request received')).length).toBeGreaterThan(10);
  });
});

describe('the Prism check itself', () => {
  // A Run the contract allows (its nullable members given as objects, valid under any reading of null).
  const run = {
    id: randomUUID(),
    workspaceId: 'ws-prism',
    state: 'failed',
    terminal: true,
    workload: { image: 'busybox:1.36' },
    provider: 'auto',
    region: 'auto',
    placement: { provider: 'simulator', region: 'local', reason: 'auto', candidates: [] },
    idempotencyKey: 'k',
    createdAt: '2026-01-01T00:00:00Z',
    dispatchedAt: null,
    startedAt: null,
    finishedAt: null,
    exitCode: 3,
    failure: { code: 'workload_exit_nonzero', message: 'exit 3' },
    cancellation: { requestedBy: 'someone', requestedAt: '2026-01-01T00:00:01Z' },
    logLines: 0,
    version: 4,
  };
  const VERSION = { api: 'v1', contractVersion: '0.3.0', build: { version: 'test', commit: null } };
  let upstream: Server;
  let proxy: PrismProxy;

  beforeAll(async () => {
    // A stand-in server that answers GET /runs/good with that Run and GET /runs/bad with it, but one field wrong.
    upstream = createServer((req, res) => {
      // GET /version answers as the contract says: the proxy's stop asks for it to drain Prism's log.
      const body = req.url?.endsWith('/version') ? VERSION : req.url?.endsWith('/bad') ? { ...run, version: 'four' } : run;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    proxy = await startPrismProxy({ contractFile: CONTRACT, upstream: `http://127.0.0.1:${port}/api/v1` });
  });

  afterAll(async () => {
    await proxy?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('passes a valid Run and fails one with a wrong-typed field, in the answer and in its log', async () => {
    const headers = { authorization: 'Bearer x' };
    const good = await fetch(`${proxy.url}/runs/good`, { headers });
    expect(good.status).toBe(200);
    expect(prismViolationsOf(good.headers, await good.json())).toEqual([]);

    const bad = await fetch(`${proxy.url}/runs/bad`, { headers });
    const problem = (await bad.json()) as { type: string; validation: { location: string[] }[] };
    expect(bad.status).toBe(500);
    expect(problem.type).toBe('https://stoplight.io/prism/errors#VIOLATIONS');
    expect(problem.validation.map((v) => v.location.join('.'))).toEqual(['response.body.version']);
    expect(prismViolationsOf(bad.headers, problem)).toHaveLength(2);

    await proxy.stop();
    expect(prismProblems(proxy.output()).join('\n')).toContain('/runs/bad');
    expect(prismProblems(proxy.output()).join('\n')).not.toContain('/runs/good');
  });
});
