import type { Request, Response } from 'express';
import { accepts, methodNotAllowedMiddleware } from './negotiation';
import { ProblemError } from './problem-error';

describe('Accept negotiation', () => {
  const json = ['application/json', 'application/problem+json'];
  it.each([
    ['*/*', true],
    ['application/*', true],
    ['application/json', true],
    ['text/html, application/json;q=0.5', true],
    ['text/html', false],
    ['application/json;q=0', false],
    ['application/xml, text/plain', false],
  ])('%s -> %s', (accept, ok) => expect(accepts(accept, json)).toBe(ok));
  it('lets an EventSource through to the relay', () => {
    expect(accepts('text/event-stream', ['text/event-stream', 'application/problem+json'])).toBe(true);
  });
});

describe("405 with Allow, by the contract's templates", () => {
  const operations = [
    { method: 'get', template: '/runs/{runId}' },
    { method: 'post', template: '/runs/{runId}:cancel' },
    { method: 'get', template: '/runs/{runId}/events' },
    { method: 'get', template: '/webhooks/{webhookId}' },
    { method: 'delete', template: '/webhooks/{webhookId}' },
    { method: 'post', template: '/webhooks/{webhookId}:rotate-secret' },
  ];
  const middleware = methodNotAllowedMiddleware('/api/v1', operations);

  /** What the middleware passes on: undefined (the route's turn) or the problem's Allow. */
  function refusal(method: string, path: string): string | undefined {
    let passed: unknown = 'not called';
    middleware({ method, path } as Request, {} as Response, (error?: unknown) => {
      passed = error;
    });
    if (passed === undefined) {
      return undefined;
    }
    expect(passed).toBeInstanceOf(ProblemError);
    return (passed as ProblemError).options.headers?.['Allow'];
  }

  it.each([
    ['GET', '/api/v1/runs/0f8fad5b-d9cb-469f-a165-70867728950e:cancel', 'POST'],
    ['PUT', '/api/v1/runs/not-a-uuid:cancel', 'POST'],
    ['DELETE', '/api/v1/runs/r:cancel', 'POST'],
    ['HEAD', '/api/v1/runs/r:cancel', 'POST'],
    ['GET', '/api/v1/webhooks/w:rotate-secret', 'POST'],
    ['POST', '/api/v1/runs/r', 'GET, HEAD'],
    ['POST', '/api/v1/runs/r:other', 'GET, HEAD'],
    ['POST', '/api/v1/webhooks/w', 'DELETE, GET, HEAD'],
  ])('%s %s: 405, Allow: %s', (method, path, allow) => {
    expect(refusal(method, path)).toBe(allow);
  });

  it.each([
    ['POST', '/api/v1/runs/r:cancel'],
    ['POST', '/api/v1/runs/not-a-uuid:cancel'],
    ['GET', '/api/v1/runs/r'],
    ['GET', '/api/v1/runs/r:other'],
    ['GET', '/api/v1/runs/r/events'],
    ['POST', '/api/v1/webhooks/w:rotate-secret'],
    ['DELETE', '/api/v1/webhooks/w'],
    ['GET', '/api/v1/unknown'],
  ])("%s %s: the route's turn", (method, path) => {
    expect(refusal(method, path)).toBeUndefined();
  });
});
