import { ContractValidator } from './contract-validator';
import { ContractClient } from './contract-client';

/** The validator must be able to fail: a test hook that accepts anything would prove nothing. */
describe('ContractValidator', () => {
  const v = new ContractValidator();
  const runId = '0b7d3c4e-5f6a-4b8c-9d0e-1f2a3b4c5d6e';
  const envelope = { runId, workspaceId: 'ws', time: '2026-11-21T10:00:00.000Z' };
  const headers = (extra: Record<string, string> = {}): Headers =>
    new Headers({ 'x-request-id': 'r1', 'content-type': 'application/json', ...extra });

  it('accepts each event kind with its payload and refuses a wrong payload', () => {
    expect(() => v.assertSchema('RunEvent', { ...envelope, type: 'run.started', data: { at: envelope.time } })).not.toThrow();
    expect(() => v.assertSchema('RunEvent', { ...envelope, type: 'run.succeeded', data: { exitCode: 1, at: envelope.time } })).toThrow();
    expect(() => v.assertSchema('RunEvent', { ...envelope, type: 'run.failed', data: { at: envelope.time } })).toThrow();
    expect(() => v.assertSchema('RunEvent', { ...envelope, type: 'run.exploded', data: { at: envelope.time } })).toThrow();
  });

  it('refuses a status the operation does not declare, even with a valid problem body', () => {
    const problem = { type: 'urn:x', title: 't', status: 418, code: 'internal_error', requestId: 'r1', retryable: false };
    const answer = { status: 418, headers: headers({ 'content-type': 'application/problem+json' }), body: problem, text: 'x' };
    expect(() => v.assertResponse('GET', '/runs/{runId}', answer)).toThrow(/status 418 is not declared/);
    // `default` in the document does not make it pass either.
    const withDefault = new ContractValidator(
      tinyDocument({ '200': { $ref: '#/components/responses/Problem' }, default: { $ref: '#/components/responses/Problem' } }),
    );
    expect(() => withDefault.assertResponse('GET', '/thing', answer)).toThrow(/status 418 is not declared/);
    expect(() => withDefault.assertResponse('GET', '/thing', { ...answer, status: 200, body: { ...problem, status: 200 } })).not.toThrow();
  });

  it('reads nullable as OpenAPI 3.0.3 does: only beside a type, so allOf [$ref] + nullable refuses null', () => {
    const doc = tinyDocument({});
    doc.components.schemas = {
      Thing: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
      Holder: {
        type: 'object',
        properties: {
          broken: { type: 'object', allOf: [{ $ref: '#/components/schemas/Thing' }], nullable: true },
          typed: { type: 'string', nullable: true },
          either: { oneOf: [{ $ref: '#/components/schemas/Thing' }, { type: 'object', nullable: true, enum: [null] }] },
        },
      },
    };
    const strict = new ContractValidator(doc);
    expect(() => strict.assertSchema('Holder', { broken: null })).toThrow();
    expect(() => strict.assertSchema('Holder', { typed: null, either: null })).not.toThrow();
    expect(() => strict.assertSchema('Holder', { either: { a: 'x' } })).not.toThrow();
    expect(() => strict.assertSchema('Holder', { either: {} })).toThrow();
  });

  it('accepts real Runs whose placement, failure and cancellation are null', () => {
    expect(() => v.assertSchema('Run', ACCEPTED_RUN)).not.toThrow();
    expect(() => v.assertSchema('Run', SUCCEEDED_RUN)).not.toThrow();
    expect(() => v.assertSchema('Run', { ...SUCCEEDED_RUN, failure: { code: 'timed_out' } })).toThrow();
    expect(() => v.assertSchema('Run', { ...SUCCEEDED_RUN, placement: 'local-1' })).toThrow();
  });

  it('refuses a response without X-Request-ID', () => {
    expect(() =>
      v.assertResponse('GET', '/version', {
        status: 200,
        headers: new Headers({ 'content-type': 'application/json' }),
        body: {},
        text: '{}',
      }),
    ).toThrow(/X-Request-ID/);
  });

  it('refuses a body with a renamed field', () => {
    const body = { api: 'v1', contractVersion: '1.0.0', build: { version: '1', commit: null } };
    expect(() => v.assertResponse('GET', '/version', { status: 200, headers: headers(), body, text: 'x' })).not.toThrow();
    const renamed = { api: 'v1', contract_version: '1.0.0', build: { version: '1', commit: null } };
    expect(() => v.assertResponse('GET', '/version', { status: 200, headers: headers(), body: renamed, text: 'x' })).toThrow();
  });

  it('refuses a media type the response does not list', () => {
    expect(() =>
      v.assertResponse('GET', '/version', { status: 200, headers: headers({ 'content-type': 'text/html' }), body: undefined, text: '<p>' }),
    ).toThrow(/content type/);
  });

  it('names the operation of a concrete path, and none for a path or method outside the contract', () => {
    expect(v.operationFor('post', `/runs/${runId}:cancel`)).toBe('/runs/{runId}:cancel');
    expect(v.operationFor('GET', `/runs/${runId}?x=1`)).toBe('/runs/{runId}');
    expect(v.operationFor('GET', `/runs/${runId}/events`)).toBe('/runs/{runId}/events');
    expect(v.operationFor('PUT', '/runs')).toBeUndefined();
    expect(v.operationFor('GET', '/nothing-here')).toBeUndefined();
  });

  it('holds a request outside the contract to 404 route_not_found or 405 method_not_allowed with Allow', () => {
    const problem = (status: number, code: string) => ({
      type: `urn:workload-run-service:problem:${code}`,
      title: 't',
      status,
      code,
      requestId: 'r1',
      retryable: false,
    });
    const answer = (status: number, code: string, extra: Record<string, string> = {}) => ({
      status,
      headers: headers({ 'content-type': 'application/problem+json', ...extra }),
      body: problem(status, code),
      text: 'x',
    });
    expect(() => v.assertOutsideContract('GET', '/nothing-here', answer(404, 'route_not_found'))).not.toThrow();
    expect(() => v.assertOutsideContract('PUT', '/runs', answer(405, 'method_not_allowed', { allow: 'GET, HEAD, POST' }))).not.toThrow();
    expect(() => v.assertOutsideContract('PUT', '/runs', answer(405, 'method_not_allowed'))).toThrow(/Allow/);
    expect(() => v.assertOutsideContract('GET', '/nothing-here', answer(500, 'internal_error'))).toThrow(/404 route_not_found/);
    expect(() => v.assertOutsideContract('GET', '/version', answer(404, 'route_not_found'))).toThrow(/is the operation/);
  });

  it('refuses an operation the contract does not have', () => {
    expect(() => v.assertResponse('DELETE', '/runs/{runId}', { status: 204, headers: headers(), body: undefined, text: '' })).toThrow(
      /not an operation/,
    );
  });
});

/** A one-operation document (GET /thing) answering with the given responses, and a Problem response. */
function tinyDocument(responses: Record<string, unknown>): { openapi: string; paths: object; components: Record<string, object> } {
  return {
    openapi: '3.0.3',
    paths: { '/thing': { get: { responses } } },
    components: {
      responses: {
        Problem: {
          description: 'A problem.',
          content: {
            'application/problem+json': { schema: { type: 'object', required: ['status'], properties: { status: { type: 'integer' } } } },
          },
        },
      },
      schemas: {},
    },
  };
}

/** Captured from a running stack (POST /runs, then GET /runs/{runId} once it had finished). */
const ACCEPTED_RUN = {
  id: '23af157a-1ba6-416e-9885-43e6f5d07b64',
  workspaceId: 'cw1',
  state: 'queued',
  terminal: false,
  workload: { env: { SIM_DURATION_MS: '100' }, image: 'busybox' },
  provider: 'simulator',
  region: 'auto',
  placement: null,
  idempotencyKey: 'k1',
  createdAt: '2026-11-25T03:38:02.587Z',
  dispatchedAt: null,
  startedAt: null,
  finishedAt: null,
  exitCode: null,
  failure: null,
  cancellation: null,
  logLines: 0,
  version: 0,
};
const SUCCEEDED_RUN = {
  ...ACCEPTED_RUN,
  state: 'succeeded',
  terminal: true,
  placement: {
    reason: 'auto: 2 candidate(s) by provider priority, then cost, then load, then configured order',
    region: 'local-1',
    provider: 'simulator',
    candidates: [
      { load: 0, region: 'local-1', provider: 'simulator' },
      { load: 0, region: 'local-2', provider: 'simulator' },
    ],
  },
  dispatchedAt: '2026-11-25T03:38:02.614Z',
  startedAt: '2026-11-25T03:38:02.743Z',
  finishedAt: '2026-11-25T03:38:02.744Z',
  exitCode: 0,
  version: 4,
};

describe('ContractClient', () => {
  it('refuses a path that names another operation than the one it is told to check the answer by', async () => {
    const client = new ContractClient('http://127.0.0.1:9');
    await expect(client.call('GET /runs/{runId}', '/runs')).rejects.toThrow(
      'GET /runs names the operation GET /runs, not GET /runs/{runId}',
    );
    await expect(client.call('GET /runs', '/nothing')).rejects.toThrow('names no operation of the contract');
  });
});
