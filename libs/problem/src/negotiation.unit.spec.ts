import { accepts } from './negotiation';

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
