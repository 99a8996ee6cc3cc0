import { ProblemError } from '@wrs/problem';

/**
 * The resume point: the `Last-Event-ID` header, or (for a browser's first connection, which cannot set
 * headers) the `lastEventId` query parameter. Absent means "from the start".
 */
export function parseLastEventId(header: string | undefined, query: unknown): number {
  const raw = header ?? (typeof query === 'string' ? query : undefined);
  if (raw === undefined || raw === '') {
    return 0;
  }
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new ProblemError('invalid_last_event_id');
  }
  return Number(raw);
}
