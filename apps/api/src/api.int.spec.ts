import { randomUUID } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { contractOperations, isRelayOperation } from '@wrs/contracts';
import { migrate } from '@wrs/persistence';
import {
  apiFetch,
  ContractClient,
  contractValidator,
  expressRoutes,
  isolatedEnvironment,
  sendRequest,
  testSigningKey,
  testToken,
  type IsolatedEnvironment,
} from '@wrs/testing';
import fc from 'fast-check';
import { API_PREFIX } from './api-app';
import { countCreatedRuns, startApi, type InProcessApi } from './in-process-api.testing';

describe('the api in-process, on a real socket, against real NATS and Postgres', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-int');
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let app: NestExpressApplication;
  let client: ContractClient;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    // Thousands of requests follow: the rate limits are not what this suite is about.
    api = await startApi(env, publicKeyFile, { LIMIT_REQUESTS_PER_MINUTE: '1000000', LIMIT_TOKEN_REQUESTS_PER_MINUTE: '1000000' });
    await api.deps.module.workspaces.ensure('ws-int', 'Integration');
    app = api.app;
    client = api.client;
  });

  afterAll(async () => {
    await api.close();
    await env.cleanup();
  });

  describe('drift between the server and the contract', () => {
    it("the api answers exactly the contract's operations but the event stream", () => {
      const served = expressRoutes(app.getHttpAdapter().getInstance(), `/${API_PREFIX}`).sort();
      const contract = contractOperations()
        .filter((op) => !isRelayOperation(op))
        .map((op) => `${op.method} ${op.template}`)
        .sort();
      expect(served).toEqual(contract);
    });
  });

  describe('HTTP edge cases are problems with their own codes', () => {
    it('405 with Allow for a known path and an unknown method', async () => {
      const res = await apiFetch(`${await app.getUrl()}/${API_PREFIX}/runs/${randomUUID()}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      expect(await res.json()).toMatchObject({ code: 'method_not_allowed', params: { allowed: ['GET', 'HEAD'] } });
    });

    it('405 for PUT on the collection that only takes GET and POST', async () => {
      const res = await apiFetch(`${await app.getUrl()}/${API_PREFIX}/runs`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    });

    it('405 with Allow: POST for another method on /runs/{runId}:cancel, any id, before authentication', async () => {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
          for (const credential of [token, undefined]) {
            const path = `/runs/${id}:cancel`;
            const res = await sendRequest(method, `${api.url}${path}`, { token: credential });
            contractValidator().assertOutsideContract(method, path, res);
            expect([method, path, res.status, res.headers.get('allow')]).toEqual([method, path, 405, 'POST']);
          }
        }
      }
    });

    it("POST /runs/{runId}:cancel with an id that is no UUID: the contract's 404 run_not_found", async () => {
      for (const id of ['not-a-uuid', 'a:b']) {
        const res = await sendRequest('POST', `${api.url}/runs/${id}:cancel`, { token });
        contractValidator().assertResponse('POST', '/runs/{runId}:cancel', res);
        expect([id, res.status, (res.body as { code?: string }).code]).toEqual([id, 404, 'run_not_found']);
      }
    });

    it('a run id whose percent-encoding does not decode names no run: 404, with or without a credential', async () => {
      for (const credential of [token, undefined]) {
        const read = await sendRequest('GET', `${api.url}/runs/%ZZ`, { token: credential });
        contractValidator().assertResponse('GET', '/runs/{runId}', read);
        expect([read.status, (read.body as { code?: string }).code]).toEqual([404, 'route_not_found']);
        const cancel = await sendRequest('POST', `${api.url}/runs/%E0%A4%A:cancel`, { token: credential });
        contractValidator().assertResponse('POST', '/runs/{runId}:cancel', cancel);
        expect([cancel.status, (cancel.body as { code?: string }).code]).toEqual([404, 'route_not_found']);
      }
    });

    it("with no encryption key configured, storing a secret is a 503 whose Retry-After says a minute, not a second's retry", async () => {
      const stored = await client.call('POST /provider-credentials', '/provider-credentials', {
        token,
        body: { provider: 'simulator', secret: 'sk-not-kept' },
      });
      const hooked = await client.call('POST /webhooks', '/webhooks', { token, body: { url: 'https://hooks.example.com/wrs' } });
      for (const res of [stored, hooked]) {
        expect([res.status, (res.body as { code?: string }).code, res.headers.get('retry-after')]).toEqual([
          503,
          'dependency_unavailable',
          '60',
        ]);
      }
    });

    it('406 for an Accept header the service cannot satisfy', async () => {
      const res = await client.call('GET /version', '/version', { headers: { accept: 'text/html' } });
      expect(res.status).toBe(406);
      expect(res.body).toMatchObject({ code: 'not_acceptable' });
    });

    it("431 problem for oversized headers instead of Node's bare text", async () => {
      const res = await client.call('GET /version', '/version', { headers: { 'x-big': 'x'.repeat(20_000) } });
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({ code: 'request_header_fields_too_large' });
    });

    it('431 problem for an oversized URL', async () => {
      const res = await client.call('GET /runs/{runId}', `/runs/${'x'.repeat(20_000)}`);
      expect(res.status).toBe(431);
    });
  });

  it("answers with the headers an API answer needs, not the ones a page needs (those are the console's)", async () => {
    const answers = [
      await client.call('GET /version', '/version'),
      await client.call('GET /runs/{runId}', `/runs/${randomUUID()}`, { token }),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 404]);
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
      expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      for (const pageOnly of [
        'content-security-policy',
        'x-frame-options',
        'referrer-policy',
        'cross-origin-opener-policy',
        'x-xss-protection',
      ]) {
        expect([pageOnly, res.headers.get(pageOnly)]).toEqual([pageOnly, null]);
      }
    }
  });

  it('answers 503 dependency_unavailable, retryable, when its dependencies are gone', async () => {
    const doomed = await startApi(env, publicKeyFile);
    const doomedApp = doomed.app;
    const doomedClient = doomed.client;
    await doomed.deps.close();
    try {
      const read = await doomedClient.call('GET /runs/{runId}', `/runs/${randomUUID()}`, { token });
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('1');
      expect(read.body).toMatchObject({ code: 'dependency_unavailable', retryable: true });
      const write = await doomedClient.call('POST /runs', '/runs', {
        token,
        headers: { 'idempotency-key': randomUUID() },
        body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
      });
      expect(write.status).toBe(503);
    } finally {
      await doomedApp.close();
    }
  });

  it('a create without an image is one validation error for workload.image, not one for each rule a non-string fails', async () => {
    const res = await client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { args: ['echo', 'hello'] }, provider: 'auto', region: 'auto' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      params: { errors: [{ field: 'workload.image', message: 'image must be a string' }] },
    });
    expect((res.body as { params: { errors: unknown[] } }).params.errors).toHaveLength(1);
  });

  describe('property: malformed and boundary requests never cause a 5xx or a run', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const nearlyValid = fc.record(
      {
        workload: fc.oneof(
          fc.record(
            { image: fc.oneof(fc.string(), fc.constantFrom('busybox', '', 'a'.repeat(513))), env: json, args: json },
            { requiredKeys: [] },
          ),
          json,
        ),
        provider: fc.oneof(fc.constantFrom('auto', 'simulator', 'aws', ''), json),
        region: fc.oneof(fc.constantFrom('auto', 'local-1', 'mars'), json),
      },
      { requiredKeys: [] },
    );
    const rawBody = fc.oneof(
      nearlyValid.map((v) => JSON.stringify(v)),
      json.map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 200 }),
      fc.constantFrom('{', '[', '{"workload":', 'null', '""', '\u0000', '{"a":1}{"b":2}'),
    );
    const headerValue = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', ' ', 'x'.repeat(256)));

    it('POST /runs', async () => {
      let created = 0;
      await fc.assert(
        fc.asyncProperty(
          rawBody,
          headerValue,
          fc.constantFrom('application/json', 'text/plain', 'application/merge-patch+json'),
          async (body, key, type) => {
            const res = await client.call('POST /runs', '/runs', {
              token,
              headers: { 'idempotency-key': key.replace(/[^\x20-\x7e]/g, '?'), 'content-type': type },
              body,
            });
            expect(res.status).toBeLessThan(500);
            if (res.status === 201) {
              created++;
            }
            // One error per field: a missing image was four (a string, 1 to 512 characters, an image reference).
            const fields = ((res.body as { params?: { errors?: { field: string }[] } }).params?.errors ?? []).map((e) => e.field);
            expect(fields).toEqual([...new Set(fields)]);
          },
        ),
        { numRuns: 1500 },
      );
      // Runs only come from 201 answers: count the runs JetStream holds events of in this namespace.
      expect(await countCreatedRuns(env)).toBe(created);
    });

    it('GET /runs/{runId}', async () => {
      await fc.assert(
        // `.` and `..` are dot-segments: a URL client resolves them away before sending.
        fc.asyncProperty(
          fc.oneof(fc.string({ minLength: 1, maxLength: 80 }), fc.uuid()).filter((id) => id !== '.' && id !== '..'),
          async (id) => {
            const res = await client.call('GET /runs/{runId}', `/runs/${encodeURIComponent(id)}`, { token });
            expect(res.status).toBe(404);
          },
        ),
        { numRuns: 1000 },
      );
    });
  });
});
