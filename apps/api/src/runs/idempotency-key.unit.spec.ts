import { ProblemError } from '@wrs/problem';
import { canonicalJson, fingerprintOf, requireIdempotencyKey } from './idempotency-key';

describe('idempotency key', () => {
  it('requires the key', () => expect(() => requireIdempotencyKey(undefined)).toThrow(ProblemError));
  it('accepts 1..255 printable ASCII characters', () => {
    expect(requireIdempotencyKey('a')).toBe('a');
    expect(requireIdempotencyKey('x'.repeat(255))).toHaveLength(255);
    expect(() => requireIdempotencyKey('')).toThrow(ProblemError);
    expect(() => requireIdempotencyKey('x'.repeat(256))).toThrow(ProblemError);
    expect(() => requireIdempotencyKey('tab\there')).toThrow(ProblemError);
    expect(() => requireIdempotencyKey('é')).toThrow(ProblemError);
  });
  it('fingerprints bodies independently of key order', () => {
    expect(fingerprintOf({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(fingerprintOf({ b: { d: 'x', c: [1, 2] }, a: 1 }));
    expect(fingerprintOf({ a: [1, 2] })).not.toBe(fingerprintOf({ a: [2, 1] }));
    expect(canonicalJson({ b: 1, a: undefined, c: null })).toBe('{"b":1,"c":null}');
  });
});
