import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds';
import { API_BASE } from '../api';
import { h } from '../dom';
import type { RunEvent, RunReset } from '@wrs/contracts/types';

/** One `data:` of the run's event stream: an event, or a reset. */
export type StreamData = RunEvent | RunReset;

/** The SSE event names the stream sends: every run event kind, and a reset. */
const EVENT_TYPES = [...RUN_EVENT_KINDS, 'reset'];

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'ended';

const TERMINAL_TYPES = new Set(['run.succeeded', 'run.failed', 'run.canceled']);
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 15_000;

/**
 * The run's events via the browser's EventSource, which sends the cookie and resumes with Last-Event-ID.
 * The page closes it after the terminal event; if it closes early on an error answer (e.g. a 503 while
 * relays restart), a new one is opened from the last event seen (`?lastEventId=`) with backoff.
 */
export function followRunEvents(
  runId: string,
  onEvent: (id: string, event: StreamData | null, type: string) => void,
  onStatus: (status: StreamStatus) => void,
): () => void {
  let source: EventSource | null = null;
  let lastId = '';
  let finished = false;
  let stopped = false;
  let retryMs = FIRST_RETRY_MS;
  let timer: number | undefined;

  const open = (): void => {
    const resume = lastId ? `?lastEventId=${encodeURIComponent(lastId)}` : '';
    const current = new EventSource(`${API_BASE}/runs/${encodeURIComponent(runId)}/events${resume}`);
    source = current;
    current.onopen = () => {
      retryMs = FIRST_RETRY_MS;
      onStatus('live');
    };
    current.onerror = () => {
      if (finished || stopped) {
        // The terminal event is shown and the server ends the stream after it: nothing to reconnect
        // for (the browser's own reconnect would get a 204), so no "connection lost" in between.
        current.close();
        onStatus('ended');
      } else if (current.readyState !== EventSource.CLOSED) {
        onStatus('reconnecting');
      } else {
        onStatus('reconnecting');
        timer = window.setTimeout(open, retryMs);
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      }
    };
    for (const type of EVENT_TYPES) {
      current.addEventListener(type, (e) => {
        const message = e as MessageEvent<string>;
        const event = parse(message.data);
        lastId = message.lastEventId || lastId;
        finished ||= TERMINAL_TYPES.has(type) || (type === 'reset' && isTerminalReset(event));
        onEvent(message.lastEventId, event, type);
      });
    }
  };

  onStatus('connecting');
  open();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
    source?.close();
  };
}

/** A reset carries the run as it stands; a finished run has nothing more to stream. */
function isTerminalReset(event: StreamData | null): boolean {
  return event?.type === 'reset' && event.data.run?.terminal === true;
}

function parse(data: string): StreamData | null {
  try {
    return JSON.parse(data) as StreamData;
  } catch {
    return null;
  }
}

/** One line of the event list: its id (the JetStream sequence), type and time. */
export function eventItem(id: string, type: string, event: StreamData | null): HTMLElement {
  return h(
    'li',
    { 'data-event-id': id, 'data-event-type': type },
    h('code', { class: 'event-id' }, id),
    ' ',
    h('span', { class: 'event-type' }, type),
    ' ',
    h('time', { datetime: event?.time ?? '' }, event?.time ? new Date(event.time).toLocaleTimeString() : ''),
  );
}

/** One log line, as the workload wrote it (text only: never markup), with its event id like an event's. */
export function logItem(id: string, event: StreamData | null): HTMLElement {
  const data = event?.type === 'run.log' ? event.data : undefined;
  return h('li', { class: `log log-${data?.stream === 'stderr' ? 'stderr' : 'stdout'}`, 'data-event-id': id }, data?.line ?? '');
}
