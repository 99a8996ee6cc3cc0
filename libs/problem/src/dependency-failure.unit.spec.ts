import { JetStreamApiError } from '@nats-io/jetstream';
import { isDependencyFailure } from './dependency-failure';

describe('a dependency failure (503 dependency_unavailable, not a 500)', () => {
  it("is pg's pool used after it was closed, as a named statement meets it when Postgres's connection is gone", () => {
    expect(isDependencyFailure(new Error('Cannot use a pool after calling end on the pool'))).toBe(true);
  });

  it('is a refused or reset connection, and an error caused by one', () => {
    expect(isDependencyFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDependencyFailure(new Error('query failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }))).toBe(true);
  });

  it("is JetStream's own 503 (no leader yet), not its other refusals", () => {
    const unavailable = new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' });
    expect(isDependencyFailure(unavailable)).toBe(true);
    expect(isDependencyFailure(new Error('append failed', { cause: unavailable }))).toBe(true);
    const wrongSequence = new JetStreamApiError({ code: 400, err_code: 10071, description: 'wrong last sequence: 7' });
    expect(isDependencyFailure(wrongSequence)).toBe(false);
  });

  it('is not a bug of ours', () => {
    expect(isDependencyFailure(new TypeError("Cannot read properties of undefined (reading 'rows')"))).toBe(false);
    expect(isDependencyFailure('a string')).toBe(false);
  });
});
