import { ProblemError } from '@wrs/problem';
import { parseLastEventId } from './last-event-id';

describe('Last-Event-ID', () => {
  it('is 0 when absent', () => expect(parseLastEventId(undefined, undefined)).toBe(0));
  it('reads the header before the query parameter', () => expect(parseLastEventId('7', '3')).toBe(7));
  it('reads the query parameter for a first browser connection', () => expect(parseLastEventId(undefined, '3')).toBe(3));
  it.each(['-1', '1.5', 'abc', ' 1', '99999999999999999', '1e3'])('refuses %j', (value) =>
    expect(() => parseLastEventId(value, undefined)).toThrow(ProblemError),
  );
});
