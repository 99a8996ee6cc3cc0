import type { JsMsg } from '@nats-io/jetstream';
import { isUuid, type RunEvent } from '@wrs/domain';
import { parseRunEventsSubject } from './names';

/**
 * The bytes of one event in JetStream. The same JSON is the SSE `data:` line, so the relay sends what
 * is stored without re-encoding it.
 */
export interface RunEventEnvelope {
  readonly type: RunEvent['type'];
  readonly runId: string;
  readonly workspaceId: string;
  readonly time: string;
  readonly data: RunEvent['data'];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeRunEvent(workspaceId: string, runId: string, event: RunEvent): Uint8Array {
  const envelope: RunEventEnvelope = { type: event.type, runId, workspaceId, time: event.data.at, data: event.data };
  return encoder.encode(JSON.stringify(envelope));
}

export function decodeRunEvent(bytes: Uint8Array): { envelope: RunEventEnvelope; event: RunEvent } {
  const envelope = JSON.parse(decoder.decode(bytes)) as RunEventEnvelope;
  return { envelope, event: { type: envelope.type, data: envelope.data } as RunEvent };
}

/** A message of the events stream as the event of a run, or null if it cannot be one. */
export function runEventOf(message: JsMsg): { runId: string; workspaceId: string; seq: number; event: RunEvent } | null {
  const ids = parseRunEventsSubject(message.subject);
  if (!ids || !isUuid(ids.runId)) {
    return null;
  }
  try {
    return { ...ids, seq: message.seq, event: decodeRunEvent(message.data).event };
  } catch {
    return null;
  }
}
