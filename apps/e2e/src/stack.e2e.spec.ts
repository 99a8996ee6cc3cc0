import { randomUUID } from 'node:crypto';
import { apiFetch, contractValidator, eventually, readSse, type SseEvent } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

type Run = { id: string; state: string; terminal: boolean; version: number; exitCode: number | null; failure: { code: string } | null };

describe('the whole stack over HTTP, through the gateway', () => {
  let f: StackFixture;
  let token: string;
  let foreignToken: string;

  beforeAll(async () => {
    f = await startStack(['ws-e2e', 'ws-other']);
    token = f.token('ws-e2e');
    foreignToken = f.token('ws-other');
  });

  afterAll(async () => {
    await f?.stop();
  });

  const workload = (env: Record<string, string> = {}): object => ({ image: 'busybox:1.36', args: ['echo', 'hi'], env });

  async function createRun(body: object = { workload: workload(), provider: 'auto', region: 'auto' }, key = randomUUID()): Promise<Run> {
    const res = await f.client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': key }, body });
    expect(res.status).toBe(201);
    return res.body as Run;
  }

  async function getRun(id: string, t = token): Promise<Run> {
    const res = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token: t });
    expect(res.status).toBe(200);
    return res.body as Run;
  }

  async function followToEnd(id: string): Promise<SseEvent[]> {
    const result = await readSse(`${f.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 20_000 });
    expect(result.status).toBe(200);
    expect(result.endedByServer).toBe(true);
    return result.events;
  }

  it('GET /version is public and names the API and contract versions', async () => {
    const res = await f.client.call('GET /version', '/version');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ api: 'v1', contractVersion: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
  });

  it('GET /openapi.json serves the contract', async () => {
    const res = await f.client.call('GET /openapi.json', '/openapi.json');
    expect(res.body).toMatchObject({ openapi: '3.0.3' });
  });

  it("GET /workspaces/current returns the token's workspace", async () => {
    const res = await f.client.call('GET /workspaces/current', '/workspaces/current', {
      token,
      headers: { 'x-service-workspace-id': 'ws-e2e' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'ws-e2e', name: 'Workspace ws-e2e' });
  });

  it('refuses a workspace header that names another workspace (403)', async () => {
    const res = await f.client.call('GET /workspaces/current', '/workspaces/current', {
      token,
      headers: { 'x-service-workspace-id': 'ws-other' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'workspace_mismatch' });
  });

  it('refuses a request without a token (401), with the request id in body and header', async () => {
    const res = await f.client.call('POST /runs', '/runs', { headers: { 'x-request-id': 'support-123' }, body: {} });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('x-request-id')).toBe('support-123');
    expect(res.body).toMatchObject({ code: 'token_missing', requestId: 'support-123', retryable: false });
  });

  it('replaces a malformed X-Request-ID with its own', async () => {
    const res = await f.client.call('GET /version', '/version', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('creates a run that a GET right after the response finds (read-your-writes)', async () => {
    for (let i = 0; i < 20; i++) {
      const created = await createRun();
      const read = await getRun(created.id);
      expect(read.id).toBe(created.id);
    }
  });

  it('follows a run through its events to success, and GET agrees', async () => {
    const run = await createRun({ workload: workload({ SIM_DURATION_MS: '100' }), provider: 'simulator', region: 'local-2' });
    expect(run).toMatchObject({ state: 'queued', terminal: false });
    const events = await followToEnd(run.id);
    expect(events.map((e) => e.event)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
    const ids = events.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    events.forEach((e) => contractValidator().assertSchema('RunEvent', JSON.parse(e.data)));
    const res = await eventually(async () => {
      const r = await f.client.call('GET /runs/{runId}', `/runs/${run.id}`, { token });
      return (r.body as Run).terminal ? r : undefined;
    });
    expect(res.body).toMatchObject({ state: 'succeeded', terminal: true, exitCode: 0, placement: { region: 'local-2' } });
    expect(res.headers.get('etag')).toBe(`"${ids[ids.length - 1]}"`);
  });

  it('fails a run whose workload exits non-zero, with the exit code', async () => {
    const run = await createRun({ workload: workload({ SIM_EXIT_CODE: '3' }), provider: 'auto', region: 'auto' });
    const events = await followToEnd(run.id);
    expect(events.at(-1)?.event).toBe('run.failed');
    // The read model trails the event stream by the projection's lag (milliseconds).
    const final = await eventually(async () => {
      const r = await getRun(run.id);
      return r.terminal ? r : undefined;
    });
    expect(final).toMatchObject({ state: 'failed', exitCode: 3, failure: { code: 'workload_exit_nonzero' } });
  });

  it('fails a run that outlives its timeout as timed_out', async () => {
    const run = await createRun({
      workload: { image: 'busybox', timeoutSeconds: 1, env: { SIM_DURATION_MS: '600000' } },
      provider: 'auto',
      region: 'auto',
    });
    const events = await followToEnd(run.id);
    expect(events.at(-1)?.event).toBe('run.failed');
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ data: { failure: { code: 'timed_out' }, exitCode: null } });
  });

  it('auto fails over from a full provider to the next, and the placement says why', async () => {
    const offers = [
      { provider: 'small', kind: 'simulator', regions: ['r1'], priority: 0, capacity: 1 },
      { provider: 'big', kind: 'simulator', regions: ['r2'], priority: 1 },
    ];
    const g = await startStack(['ws-place'], { PROVIDERS_JSON: JSON.stringify(offers) });
    try {
      const t = g.token('ws-place');
      const create = async (): Promise<Run> => {
        const res = await g.client.call('POST /runs', '/runs', {
          token: t,
          headers: { 'idempotency-key': randomUUID() },
          body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '600000' } }, provider: 'auto', region: 'auto' },
        });
        return res.body as Run;
      };
      const placed = async (id: string) =>
        eventually(async () => {
          const r = (await g.client.call('GET /runs/{runId}', `/runs/${id}`, { token: t })).body as Run & { placement: unknown };
          return r.placement ? r.placement : undefined;
        });
      const first = await create();
      expect(await placed(first.id)).toMatchObject({ provider: 'small', region: 'r1' });
      const second = await create();
      const placement = await placed(second.id);
      expect(placement).toMatchObject({
        provider: 'big',
        region: 'r2',
        candidates: [
          { provider: 'small', region: 'r1' },
          { provider: 'big', region: 'r2' },
        ],
        failovers: [{ provider: 'small', region: 'r1', code: 'no_capacity' }],
      });
      const events = await readSse(
        `${g.stack.baseUrl}/runs/${second.id}/events`,
        { authorization: `Bearer ${t}` },
        {
          until: (e) => e.some((x) => x.event === 'run.dispatched'),
        },
      );
      const dispatched = events.events.find((e) => e.event === 'run.dispatched')!;
      expect(JSON.parse(dispatched.data)).toMatchObject({ data: { placement: { failovers: [{ code: 'no_capacity' }] } } });
    } finally {
      await g.stop();
    }
  });

  it('cancels a running run; cancelling again changes nothing', async () => {
    const run = await createRun({ workload: workload({ SIM_DURATION_MS: '600000' }), provider: 'auto', region: 'auto' });
    await eventually(async () => ((await getRun(run.id)).state === 'running' ? true : undefined), 10_000, 'running');
    const res = await f.client.call('POST /runs/{runId}:cancel', `/runs/${run.id}:cancel`, { token });
    expect(res.status).toBe(202);
    const events = await followToEnd(run.id);
    expect(events.map((e) => e.event).slice(-2)).toEqual(['run.cancel_requested', 'run.canceled']);
    await eventually(async () => ((await getRun(run.id)).terminal ? true : undefined));
    const again = await f.client.call('POST /runs/{runId}:cancel', `/runs/${run.id}:cancel`, { token });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ state: 'canceled', terminal: true });
    await new Promise((r) => setTimeout(r, 300));
    expect((await getRun(run.id)).version).toBe((again.body as Run).version);
  });

  it('cancels a queued run before it is dispatched', async () => {
    const run = await createRun({ workload: workload(), provider: 'auto', region: 'auto' });
    await f.client.call('POST /runs/{runId}:cancel', `/runs/${run.id}:cancel`, { token });
    const final = await eventually(async () => {
      const r = await getRun(run.id);
      return r.terminal ? r : undefined;
    });
    // Either the cancel overtook dispatch (canceled) or the run was already dispatched (then also canceled).
    expect(final.state).toBe('canceled');
  });

  it('answers :cancel on an unknown run with a 404 problem', async () => {
    const res = await f.client.call('POST /runs/{runId}:cancel', `/runs/${randomUUID()}:cancel`, { token });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'run_not_found' });
  });

  it("hides another workspace's run on every route that takes an id", async () => {
    const run = await createRun();
    const get = await f.client.call('GET /runs/{runId}', `/runs/${run.id}`, { token: foreignToken });
    const cancel = await f.client.call('POST /runs/{runId}:cancel', `/runs/${run.id}:cancel`, { token: foreignToken });
    const events = await readSse(`${f.stack.baseUrl}/runs/${run.id}/events`, { authorization: `Bearer ${foreignToken}` });
    const missing = await f.client.call('GET /runs/{runId}', `/runs/${randomUUID()}`, { token: foreignToken });
    const strip = (body: unknown): unknown => ({ ...(body as object), requestId: undefined });
    expect(get.status).toBe(404);
    expect(cancel.status).toBe(404);
    expect(events.status).toBe(404);
    expect(strip(get.body)).toEqual(strip(missing.body));
    expect(strip(cancel.body)).toEqual(strip(missing.body));
    expect(strip(JSON.parse(events.text))).toEqual(strip(missing.body));
    expect((await getRun(run.id)).state).not.toBe('canceled');
  });

  it('treats a run id that is not a UUID as a run that does not exist', async () => {
    const res = await f.client.call('GET /runs/{runId}', '/runs/not-a-uuid', { token });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'run_not_found' });
  });

  it('replays a retried create (same key, same body) and refuses the key with another body', async () => {
    const key = randomUUID();
    const body = { workload: workload(), provider: 'auto', region: 'auto' };
    const first = await createRun(body, key);
    const retry = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': key },
      body: { region: 'auto', provider: 'auto', workload: workload() },
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((retry.body as Run).id).toBe(first.id);
    const conflict = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': key },
      body: { ...body, region: 'local-1' },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ code: 'idempotency_conflict', retryable: false });
  });

  describe('bad input is a 4xx problem, never a 5xx', () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      f.client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': randomUUID(), ...headers }, body });

    it('malformed JSON', async () => {
      const res = await post('{"workload":');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'malformed_json' });
    });
    it('a body that is not JSON', async () => {
      const res = await post('image=busybox', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ code: 'unsupported_media_type' });
    });
    it('a missing Idempotency-Key', async () => {
      const res = await f.client.call('POST /runs', '/runs', { token, body: { workload: workload(), provider: 'auto', region: 'auto' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'idempotency_key_missing' });
    });
    it('a body missing required fields, listing each field', async () => {
      const res = await post({ workload: {}, provider: 'auto' });
      expect(res.status).toBe(400);
      const fields = (res.body as { params: { errors: { field: string }[] } }).params.errors.map((e) => e.field);
      expect(fields).toEqual(expect.arrayContaining(['workload.image', 'region']));
    });
    it('unknown fields', async () => {
      const res = await post({ workload: workload(), provider: 'auto', region: 'auto', priority: 9 });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    });
    it('a JSON array or scalar', async () => {
      expect((await post('[1,2]')).status).toBe(400);
      expect((await post('42')).status).toBe(400);
    });
    it('an unknown provider, with the allowed values', async () => {
      const res = await post({ workload: workload(), provider: 'aws', region: 'auto' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'unsupported_provider', params: { allowed: ['auto', 'simulator'] } });
    });
    it('an unknown region, with the allowed values', async () => {
      const res = await post({ workload: workload(), provider: 'simulator', region: 'mars-1' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'unsupported_region', params: { allowed: ['auto', 'local-1', 'local-2'] } });
    });
    it('a body over 64 KiB', async () => {
      const res = await post({ workload: { image: 'busybox', args: ['x'.repeat(70_000)] }, provider: 'auto', region: 'auto' });
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ code: 'payload_too_large', params: { limitBytes: 65536 } });
    });
    it('an unknown route', async () => {
      const res = await apiFetch(`${f.stack.baseUrl}/nothing-here`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      contractValidator().assertSchema('Problem', await res.json());
    });
    it('a forged token', async () => {
      const res = await f.client.call('GET /runs/{runId}', `/runs/${randomUUID()}`, { token: `${token.slice(0, -4)}AAAA` });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'token_invalid_signature' });
      expect(res.text).not.toContain(token.slice(0, 20));
    });
  });

  it('logs one JSON line per request with its id, route template, status, duration and workspace', async () => {
    const run = await createRun();
    await f.client.call('GET /runs/{runId}', `/runs/${run.id}`, { token, headers: { 'x-request-id': 'trace-me-1' } });
    await readSse(
      `${f.stack.baseUrl}/runs/${run.id}/events`,
      { authorization: `Bearer ${token}`, 'x-request-id': 'trace-me-2' },
      {
        until: (e) => e.length > 0,
      },
    );
    const lines = await eventually(() => {
      const parsed = f.logs
        .filter((l) => l.includes('trace-me-'))
        .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Record<string, unknown>);
      return Promise.resolve(parsed.length >= 2 ? parsed : undefined);
    });
    expect(lines.find((l) => l['requestId'] === 'trace-me-1')).toMatchObject({
      service: 'api',
      method: 'GET',
      route: '/api/v1/runs/:runId',
      status: 200,
      workspaceId: 'ws-e2e',
      runId: run.id,
      durationMs: expect.any(Number),
    });
    expect(lines.find((l) => l['requestId'] === 'trace-me-2')).toMatchObject({
      service: 'stream-relay',
      route: '/api/v1/runs/:runId/events',
      status: 200,
      workspaceId: 'ws-e2e',
    });
  });

  it('wrote no 5xx and no stack trace while handling all of that', () => {
    expect(f.logs.filter((l) => /unexpected error|"status":5\d\d/.test(l))).toEqual([]);
  });
});
