import type { ArgumentsHost } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { ProblemFilter } from './problem.filter';
import { ProblemError } from './problem-error';

/** A response recorder: the filter only needs status, headers and one send. */
function recorder() {
  const out = { status: 0, headers: {} as Record<string, string>, type: '', body: '' };
  const res = {
    headersSent: false,
    status: (s: number) => ((out.status = s), res),
    setHeader: (k: string, v: string) => void (out.headers[k] = v),
    type: (t: string) => ((out.type = t), res),
    send: (b: string) => void (out.body = b),
  };
  const req = { method: 'GET', requestId: 'req-1', route: { path: '/x' } };
  const host = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
  return { out, host };
}

describe('ProblemFilter', () => {
  beforeAll(() => jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined));
  beforeAll(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));

  it('renders a ProblemError with its status, code, params and headers', () => {
    const { out, host } = recorder();
    new ProblemFilter().catch(new ProblemError('method_not_allowed', { headers: { Allow: 'GET' }, params: { a: 1 } }), host);
    expect(out.status).toBe(405);
    expect(out.headers['Allow']).toBe('GET');
    expect(JSON.parse(out.body)).toMatchObject({ code: 'method_not_allowed', requestId: 'req-1', params: { a: 1 } });
  });

  it('turns an unexpected exception into a retryable 500 that leaks nothing', () => {
    const { out, host } = recorder();
    new ProblemFilter().catch(new TypeError('secret internal detail at /srv/app.js:12'), host);
    expect(out.status).toBe(500);
    expect(out.type).toBe('application/problem+json');
    expect(JSON.parse(out.body)).toEqual({
      type: 'urn:workload-run-service:problem:internal_error',
      title: 'An unexpected error occurred.',
      status: 500,
      code: 'internal_error',
      requestId: 'req-1',
      retryable: true,
    });
    expect(out.body).not.toContain('secret');
  });

  it("gives a ProblemError's 503 a Retry-After, its own when it has one", () => {
    const bare = recorder();
    new ProblemFilter().catch(new ProblemError('dependency_unavailable', { detail: 'encryption is not configured' }), bare.host);
    expect([bare.out.status, bare.out.headers['Retry-After']]).toEqual([503, '1']);
    const own = recorder();
    new ProblemFilter().catch(new ProblemError('dependency_unavailable', { headers: { 'Retry-After': '60' } }), own.host);
    expect(own.out.headers['Retry-After']).toBe('60');
  });

  it('turns a dependency failure into a retryable 503 with Retry-After', () => {
    const { out, host } = recorder();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    new ProblemFilter().catch(refused, host);
    expect(out.status).toBe(503);
    expect(out.headers['Retry-After']).toBe('1');
    expect(JSON.parse(out.body)).toMatchObject({ code: 'dependency_unavailable', retryable: true });
  });
});
