import { ContractValidator } from './contract-validator';

/** The validator must be able to fail: a test hook that accepts anything would prove nothing. */
describe('ContractValidator', () => {
  const v = new ContractValidator();
  const runId = '0b7d3c4e-5f6a-4b8c-9d0e-1f2a3b4c5d6e';
  const envelope = { runId, workspaceId: 'ws', time: '2026-11-21T10:00:00.000Z' };
  const headers = (extra: Record<string, string> = {}): Headers =>
    new Headers({ 'x-request-id': 'r1', 'content-type': 'application/json', ...extra });

  it('accepts each event kind with its payload and refuses a wrong payload', () => {
    expect(() => v.assertSchema('RunEvent', { ...envelope, type: 'run.started', data: { at: envelope.time } })).not.toThrow();
    expect(() =>
      v.assertSchema('RunEvent', { ...envelope, type: 'run.succeeded', data: { exitCode: 1, at: envelope.time } }),
    ).toThrow();
    expect(() => v.assertSchema('RunEvent', { ...envelope, type: 'run.failed', data: { at: envelope.time } })).toThrow();
    expect(() => v.assertSchema('RunEvent', { ...envelope, type: 'run.exploded', data: { at: envelope.time } })).toThrow();
  });

  it('holds an undeclared status to the default (problem) response', () => {
    expect(() =>
      v.assertResponse('GET', '/runs/{runId}', { status: 418, headers: headers(), body: {}, text: '{}' }),
    ).toThrow(/content type application\/json not in application\/problem\+json/);
  });

  it('refuses a response without X-Request-ID', () => {
    expect(() =>
      v.assertResponse('GET', '/version', { status: 200, headers: new Headers({ 'content-type': 'application/json' }), body: {}, text: '{}' }),
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

  it('refuses an operation the contract does not have', () => {
    expect(() => v.assertResponse('DELETE', '/runs/{runId}', { status: 204, headers: headers(), body: undefined, text: '' })).toThrow(
      /not an operation/,
    );
  });
});
