import { isTerminalEventType } from '@wrs/domain';
import type { StreamRunEvent } from '@wrs/messaging';
import type { WebhookEventKind } from '@wrs/persistence';

/** Log lines one `run.logs` delivery carries at most; more go into the next one. */
export const MAX_LINES_PER_DELIVERY = 100;

/** A new `run.logs` delivery waits this long for more lines to join it. */
export const LOGS_WINDOW_MS = 1000;

export interface LogLine {
  readonly seq: number;
  readonly index: number;
  readonly stream: string;
  readonly line: string;
  readonly at: string;
}

/** What an event owes an endpoint that asked for its kind: a delivery of its own, or lines for a `run.logs` one. */
export type Owed =
  | { readonly kind: 'started' | 'completed'; readonly payload: WebhookPayload }
  | { readonly kind: 'logs'; readonly line: LogLine; readonly at: string };

/** The body sent, as Standard Webhooks suggests: a type, a timestamp and the data. */
export interface WebhookPayload {
  readonly type: 'run.started' | 'run.completed' | 'run.logs';
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

export function owedBy(e: StreamRunEvent): Owed | null {
  const { event, runId, workspaceId } = e;
  if (event.type === 'run.started') {
    return { kind: 'started', payload: { type: 'run.started', timestamp: event.data.at, data: { runId, workspaceId, seq: e.seq, event } } };
  }
  if (isTerminalEventType(event.type)) {
    const state = event.type.slice('run.'.length);
    return {
      kind: 'completed',
      payload: { type: 'run.completed', timestamp: event.data.at, data: { runId, workspaceId, seq: e.seq, state, event } },
    };
  }
  if (event.type === 'run.log') {
    const { index, stream, line, at } = event.data;
    return { kind: 'logs', line: { seq: e.seq, index, stream, line, at }, at };
  }
  return null;
}

export function logsPayload(runId: string, workspaceId: string, first: LogLine): WebhookPayload {
  return { type: 'run.logs', timestamp: first.at, data: { runId, workspaceId, lines: [first] } };
}

export function wants(events: readonly WebhookEventKind[], kind: WebhookEventKind): boolean {
  return events.includes(kind);
}
