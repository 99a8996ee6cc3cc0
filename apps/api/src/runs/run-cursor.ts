import { isUuid } from '@wrs/domain';
import { ProblemError } from '@wrs/problem';
import { parseRfc3339 } from './rfc3339';

/** Where a page of the runs list ends: the last run's creation time and id (the list's sort key). */
export interface RunCursor {
  readonly createdAt: string;
  readonly id: string;
}

/**
 * Opaque to clients (base64url of JSON), checked to the letter when it comes back: a cursor that was
 * not made here is a 400 `invalid_cursor`, never a query with garbage in it.
 */
export function encodeRunCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

export function decodeRunCursor(text: string): RunCursor {
  const parsed = /^[A-Za-z0-9_-]{1,200}$/.test(text) ? parseJson(Buffer.from(text, 'base64url').toString('utf8')) : null;
  const [createdAt, id]: unknown[] = Array.isArray(parsed) && parsed.length === 2 ? parsed : [];
  const at = typeof createdAt === 'string' ? parseRfc3339(createdAt) : null;
  if (at !== null && typeof id === 'string' && isUuid(id)) {
    return { createdAt: new Date(at).toISOString(), id };
  }
  throw new ProblemError('invalid_cursor', { detail: 'use the nextCursor of a previous answer, unchanged' });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
