import { assertApiAnswer } from './contract-checked-fetch';
import { contractValidator } from './contract-client';
import { patience } from './patience';
import { parseJsonOrUndefined } from './parse-json';

export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

export interface SseResult {
  readonly status: number;
  readonly headers: Headers;
  readonly events: SseEvent[];
  /** Comment lines (heartbeats) seen. */
  readonly comments: number;
  /** True when the server ended the stream; false when we stopped reading first. */
  readonly endedByServer: boolean;
  readonly text: string;
}

/**
 * Reads a text/event-stream over a real socket and parses it as the WHATWG spec says (fields, blank
 * line dispatch, comments). Stops when the server ends the stream, `until` is satisfied, or time runs out.
 * The answer is held to the contract: a stream's status, headers and content type, any other answer whole.
 */
export async function readSse(
  url: string,
  headers: Record<string, string>,
  options: { until?: (events: SseEvent[]) => boolean; timeoutMs?: number } = {},
): Promise<SseResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), patience(options.timeoutMs ?? 10_000));
  const res = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  let comments = 0;
  let text = '';
  let endedByServer = false;
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    clearTimeout(timer);
    const whole = await res.text();
    assertApiAnswer('GET', url, { status: res.status, headers: res.headers, text: whole, body: parseJsonOrUndefined(whole) });
    return { status: res.status, headers: res.headers, events, comments, endedByServer: true, text: whole };
  }
  try {
    assertApiAnswer('GET', url, { status: res.status, headers: res.headers, text: '', body: undefined });
  } catch (error) {
    clearTimeout(timer);
    controller.abort();
    throw error;
  }
  let buffer = '';
  let current: { id?: string; event?: string; data: string[] } = { data: [] };
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const piece = decoder.decode(chunk, { stream: true });
      text += piece;
      buffer += piece;
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (current.data.length > 0) {
            events.push({ id: current.id, event: current.event ?? 'message', data: current.data.join('\n') });
          }
          current = { data: [] };
        } else if (line.startsWith(':')) {
          comments++;
        } else {
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') {
            current.data.push(value);
          } else if (field === 'id') {
            current.id = value;
          } else if (field === 'event') {
            current.event = value;
          }
        }
      }
      if (options.until?.(events)) {
        controller.abort();
        break;
      }
    }
    endedByServer = !controller.signal.aborted;
  } catch (error) {
    if (!controller.signal.aborted) {
      throw error;
    }
  } finally {
    clearTimeout(timer);
  }
  events.forEach(assertContractEvent);
  return { status: res.status, headers: res.headers, events, comments, endedByServer, text };
}

/** Every event a stream delivers is held to the contract too: its `data:` to its schema, its name to its type. */
export function assertContractEvent(event: SseEvent): void {
  const data = parseJsonOrUndefined(event.data) as { type?: unknown } | undefined;
  contractValidator().assertSchema(event.event === 'reset' ? 'RunReset' : 'RunEvent', data);
  if (data?.type !== event.event) {
    throw new Error(`SSE event ${event.id ?? '(no id)'}: named ${event.event} but its data says type ${String(data?.type)}`);
  }
}
