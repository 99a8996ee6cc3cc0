import { SseParser } from './sse-parser';

describe('the SSE parser (WHATWG HTML 9.2.6)', () => {
  it('dispatches on a blank line, joins data lines, keeps the last id, drops comments', () => {
    const parser = new SseParser();
    const messages = parser.push(': heartbeat\nid: 7\nevent: run.log\ndata: a\ndata: b\n\ndata: c\n\n');
    expect(messages).toEqual([
      { lastEventId: '7', event: 'run.log', data: 'a\nb' },
      { lastEventId: '7', event: 'message', data: 'c' },
    ]);
  });

  it('takes CRLF, CR and LF line ends, also split across chunks, and drops a leading BOM', () => {
    const parser = new SseParser();
    const pieces = ['\uFEFFid: 1\r', '\ndata: x\r', '\r', '\ndata: y\r\r'];
    expect(pieces.flatMap((p) => parser.push(p))).toEqual([
      { lastEventId: '1', event: 'message', data: 'x' },
      { lastEventId: '1', event: 'message', data: 'y' },
    ]);
  });

  it('reads retry only when it is all digits; ignores ids with NULL; an event without data dispatches nothing', () => {
    const parser = new SseParser('3');
    expect(parser.push('retry: 1500\n\nretry: 2s\nid: 4\0\nevent: x\n\n')).toEqual([]);
    expect(parser.retryMs).toBe(1500);
    expect(parser.lastEventId).toBe('3');
    expect(parser.push('id\ndata\n\n')).toEqual([{ lastEventId: '', event: 'message', data: '' }]);
  });

  it('keeps an incomplete event until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('id: 9\ndata: {"a"')).toEqual([]);
    expect(parser.push(':1}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ lastEventId: '9', event: 'message', data: '{"a":1}' }]);
  });
});
