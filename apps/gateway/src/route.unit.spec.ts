import { upstreamFor } from './route';

describe('gateway routing', () => {
  it('sends the events path to the relay', () => {
    expect(upstreamFor('/api/v1/runs/abc/events')).toBe('relay');
    expect(upstreamFor('/api/v1/runs/abc/events?lastEventId=3')).toBe('relay');
  });
  it('sends everything else to the api', () => {
    expect(upstreamFor('/api/v1/runs/abc')).toBe('api');
    expect(upstreamFor('/api/v1/runs/abc:cancel')).toBe('api');
    expect(upstreamFor('/api/v1/runs/abc/events/extra')).toBe('api');
    expect(upstreamFor('/api/v1/version')).toBe('api');
  });
});
