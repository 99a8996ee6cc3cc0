/** One dispatched Server-Sent Event. */
export interface SseMessage {
  /** The last event id in force when it was dispatched (WHATWG: it carries over from earlier events). */
  readonly lastEventId: string;
  readonly event: string;
  readonly data: string;
}

/**
 * An incremental text/event-stream parser per the WHATWG HTML standard (9.2.6), including its quirks: a
 * CRLF split across chunks is one line end, a leading BOM is dropped, and `id` with NULL is ignored.
 */
export class SseParser {
  private buffer = '';
  private started = false;
  private skipLeadingLf = false;
  private data: string[] = [];
  private eventType = '';
  private lastEventIdBuffer: string;

  /** The reconnection time the server asked for with `retry:`, if it did. */
  retryMs: number | undefined;
  /** `: heartbeat` comments seen: the contract's sign that the stream is alive while the run is quiet. */
  heartbeats = 0;

  constructor(lastEventId = '') {
    this.lastEventIdBuffer = lastEventId;
  }

  get lastEventId(): string {
    return this.lastEventIdBuffer;
  }

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseMessage[] {
    let chunk = text;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.startsWith('\uFEFF')) {
        chunk = chunk.slice(1);
      }
    }
    if (this.skipLeadingLf && chunk.startsWith('\n')) {
      chunk = chunk.slice(1);
    }
    this.skipLeadingLf = false;
    this.buffer += chunk;
    const messages: SseMessage[] = [];
    for (;;) {
      const end = this.buffer.search(/[\r\n]/);
      if (end === -1) {
        break;
      }
      const line = this.buffer.slice(0, end);
      let rest = this.buffer.slice(end + 1);
      if (this.buffer[end] === '\r') {
        if (rest.startsWith('\n')) {
          rest = rest.slice(1);
        } else if (rest === '') {
          this.skipLeadingLf = true;
        }
      }
      this.buffer = rest;
      const message = this.line(line);
      if (message) {
        messages.push(message);
      }
    }
    return messages;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      return this.dispatch();
    }
    if (line.startsWith(':')) {
      if (line === ': heartbeat' || line === ':heartbeat') {
        this.heartbeats++;
      }
      return undefined;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.lastEventIdBuffer = value;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) {
          this.retryMs = Number(value);
        }
        break;
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    const data = this.data;
    const event = this.eventType || 'message';
    this.data = [];
    this.eventType = '';
    if (data.length === 0) {
      return undefined;
    }
    return { lastEventId: this.lastEventIdBuffer, event, data: data.join('\n') };
  }
}
