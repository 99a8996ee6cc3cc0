import { LABEL_LIMITS, parseLabelSelector, RUN_STATES, type RunStateName } from '@wrs/domain';
import type { RunListFilter } from '@wrs/persistence';
import { ProblemError } from '@wrs/problem';
import { PRINTABLE_ASCII } from './idempotency-key';
import { decodeRunCursor } from './run-cursor';
import { parseRfc3339 } from './rfc3339';

export const LIST_LIMIT = { default: 20, min: 1, max: 100 } as const;

const KNOWN_PARAMETERS = ['limit', 'cursor', 'state', 'createdAfter', 'createdBefore', 'idempotencyKey', 'label'];

interface FieldError {
  field: string;
  message: string;
  [bound: string]: unknown;
}

/**
 * `GET /runs` query parameters, all checked at once so one answer names every bad one (a foreign cursor is
 * `invalid_cursor`). `state` accepts `a,b` or repeats, `label` repeats; other parameters must appear once.
 */
export function parseListRunsQuery(query: Record<string, unknown>): RunListFilter {
  const errors: FieldError[] = [];
  for (const name of Object.keys(query).filter((n) => !KNOWN_PARAMETERS.includes(n))) {
    errors.push({ field: name, message: 'unknown query parameter', allowed: KNOWN_PARAMETERS });
  }
  const single = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined || typeof value === 'string') {
      return value;
    }
    errors.push({ field: name, message: `${name} must be given once` });
    return undefined;
  };
  const limit = parseLimit(single('limit'), errors);
  const states = parseStates(query['state'], errors);
  const createdAfter = parseTime('createdAfter', single('createdAfter'), errors);
  const createdBefore = parseTime('createdBefore', single('createdBefore'), errors);
  const cursor = single('cursor');
  const idempotencyKey = single('idempotencyKey');
  const labels = parseLabels(query['label'], errors);
  if (idempotencyKey !== undefined && !PRINTABLE_ASCII.test(idempotencyKey)) {
    errors.push({
      field: 'idempotencyKey',
      message: 'idempotencyKey must be 1 to 255 printable ASCII characters',
      minLength: 1,
      maxLength: 255,
    });
  }
  if (errors.length > 0) {
    throw new ProblemError('validation_failed', { params: { errors } });
  }
  return {
    limit,
    ...(cursor !== undefined ? { after: decodeRunCursor(cursor) } : {}),
    ...(states ? { states } : {}),
    ...(createdAfter ? { createdAfter } : {}),
    ...(createdBefore ? { createdBefore } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    ...(labels ? { labels } : {}),
  };
}

function parseLabels(raw: unknown, errors: FieldError[]): { key: string; value: string }[] | undefined {
  if (raw === undefined) {
    return undefined;
  }
  const values = Array.isArray(raw) ? (raw as unknown[]) : [raw];
  const labels = values.map((v) => (typeof v === 'string' ? parseLabelSelector(v) : null));
  const refused = values.filter((_, i) => labels[i] === null);
  if (refused.length > 0) {
    errors.push({
      field: 'label',
      message:
        'each label must be key=value: a key of Kubernetes label form ([prefix/]name, the name at most 63 characters: letters, digits, -, _ and ., ' +
        "a letter or digit at each end), and a value empty or of a name's form",
      refused: refused.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
    });
    return undefined;
  }
  if (labels.length > LABEL_LIMITS.maxLabels) {
    errors.push({ field: 'label', message: `at most ${LABEL_LIMITS.maxLabels} labels`, max: LABEL_LIMITS.maxLabels });
    return undefined;
  }
  return labels as { key: string; value: string }[];
}

function parseLimit(text: string | undefined, errors: FieldError[]): number {
  if (text === undefined) {
    return LIST_LIMIT.default;
  }
  const value = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(value >= LIST_LIMIT.min && value <= LIST_LIMIT.max)) {
    errors.push({
      field: 'limit',
      message: `limit must be an integer from ${LIST_LIMIT.min} to ${LIST_LIMIT.max}`,
      min: LIST_LIMIT.min,
      max: LIST_LIMIT.max,
    });
  }
  return value;
}

function parseStates(raw: unknown, errors: FieldError[]): RunStateName[] | undefined {
  if (raw === undefined) {
    return undefined;
  }
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => (typeof v === 'string' ? v.split(',') : ['']));
  const unknown = values.filter((v) => !(RUN_STATES as readonly string[]).includes(v));
  if (unknown.length > 0) {
    errors.push({ field: 'state', message: 'each state must be one of the allowed values', allowed: [...RUN_STATES] });
    return undefined;
  }
  return [...new Set(values as RunStateName[])];
}

function parseTime(field: string, text: string | undefined, errors: FieldError[]): string | undefined {
  if (text === undefined) {
    return undefined;
  }
  const epochMs = parseRfc3339(text);
  if (epochMs === null) {
    errors.push({ field, message: `${field} must be an RFC 3339 date-time, e.g. 2026-01-31T12:00:00Z` });
    return undefined;
  }
  return new Date(epochMs).toISOString();
}
