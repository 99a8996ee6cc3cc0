import { redactSecret } from './redact';

const SECRET = 'eyJhbGciOiJFZERTQSJ9\neyJ3cyI6ImRlbW8ifQ';

describe('redactSecret', () => {
  it('takes the secret out as it is, as JSON escapes it, and each of its lines', () => {
    expect(redactSecret(`Headers.append: "Bearer ${SECRET}" is an invalid header value.`, SECRET)).toBe(
      'Headers.append: "Bearer [redacted]" is an invalid header value.',
    );
    expect(redactSecret(JSON.stringify({ message: `Bearer ${SECRET}` }), SECRET)).toBe('{"message":"Bearer [redacted]"}');
    expect(redactSecret('first eyJhbGciOiJFZERTQSJ9, then eyJ3cyI6ImRlbW8ifQ', SECRET)).toBe('first [redacted], then [redacted]');
  });

  it('leaves text alone without a secret, or with one too short to be a token (it would match words)', () => {
    expect(redactSecret('network error: fetch failed', undefined)).toBe('network error: fetch failed');
    expect(redactSecret('network error: fetch failed', 't')).toBe('network error: fetch failed');
  });
});
