import { createHash } from 'node:crypto';
import { ProblemError } from '@wrs/problem';

/** What an Idempotency-Key may be: 1 to 255 printable ASCII characters. */
export const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

export function requireIdempotencyKey(value: string | undefined): string {
  if (value === undefined) {
    throw new ProblemError('idempotency_key_missing');
  }
  if (!PRINTABLE_ASCII.test(value)) {
    throw new ProblemError('idempotency_key_invalid', { params: { minLength: 1, maxLength: 255 } });
  }
  return value;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Fingerprint of a request body: key order and whitespace do not change it. */
export function fingerprintOf(body: unknown): string {
  return sha256Hex(canonicalJson(body));
}

/** The same value with object keys sorted, recursively: one byte-exact form per logical body. */
export function canonicalize(value: unknown): unknown {
  return JSON.parse(canonicalJson(value));
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
