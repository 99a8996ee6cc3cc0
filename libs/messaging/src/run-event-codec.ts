import type { JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import type { Exact, Immutable, RunEvent as ContractRunEvent } from '@wrs/contracts/types';
import { isUuid, type RunEvent } from '@wrs/domain';
import { parseRunEventsSubject } from './names';

/** One kind's envelope: its `type` goes with its own `data`. */
type EnvelopeOf<E extends RunEvent> = E extends RunEvent
  ? { readonly type: E['type']; readonly runId: string; readonly workspaceId: string; readonly time: string; readonly data: E['data'] }
  : never;

/**
 * The bytes of one event in JetStream. The same JSON is the SSE `data:` line, so the relay sends what
 * is stored without re-encoding it: each envelope must be the contract's RunEvent (encodeRunEvent checks).
 */
export type RunEventEnvelope = EnvelopeOf<RunEvent>;

/** Per kind, the envelope with every field the contract's event of that kind lacks (at any depth) typed `never`. */
type ExactEnvelope = {
  [K in RunEvent['type']]: Exact<Extract<ContractRunEvent, { type: K }>, EnvelopeOf<Extract<RunEvent, { type: K }>>>;
}[RunEvent['type']];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeRunEvent(workspaceId: string, runId: string, event: RunEvent): Uint8Array {
  // The cast pairs the type with its data (TypeScript does not follow that across the union).
  const envelope = { type: event.type, runId, workspaceId, time: event.data.at, data: event.data } as RunEventEnvelope;
  // The contract's RunEvent, and per kind nothing it lacks: its schemas refuse additional properties.
  const asSent: Immutable<ContractRunEvent> = envelope satisfies ExactEnvelope;
  return encoder.encode(JSON.stringify(asSent));
}

export function decodeRunEvent(bytes: Uint8Array): { envelope: RunEventEnvelope; event: RunEvent } {
  const envelope = JSON.parse(decoder.decode(bytes)) as RunEventEnvelope;
  return { envelope, event: { type: envelope.type, data: envelope.data } as RunEvent };
}

/** Header naming the sequence of the run's previous event (0 for its first). */
export const PREVIOUS_EVENT_HEADER = 'Run-Previous-Seq';

/** One run's event as read from the events stream: its sequence, the previous one's and the event. */
export interface StreamRunEvent {
  readonly runId: string;
  readonly workspaceId: string;
  readonly seq: number;
  /** The run's previous event's sequence (0 for its first), or null if the message does not say. */
  readonly previous: number | null;
  readonly event: RunEvent;
}

/** A message of the events stream as the event of a run, or null if it cannot be one. */
export function runEventOf(message: JsMsg): StreamRunEvent | null {
  return runEventFrom(message.subject, message.seq, message.data, message.headers);
}

/** The same for a message read by sequence (a `StoredMsg`, whose headers are named `header`). */
export function runEventFrom(subject: string, seq: number, data: Uint8Array, meta: MsgHdrs | undefined): StreamRunEvent | null {
  const ids = parseRunEventsSubject(subject);
  if (!ids || !isUuid(ids.runId)) {
    return null;
  }
  try {
    return { ...ids, seq, previous: previousOf(meta), event: decodeRunEvent(data).event };
  } catch {
    return null;
  }
}

/** The previous event's sequence a message names, or null when it names none (or nonsense). */
export function previousOf(meta: MsgHdrs | undefined): number | null {
  const value = meta?.get(PREVIOUS_EVENT_HEADER);
  const previous = value ? Number(value) : NaN;
  return Number.isSafeInteger(previous) && previous >= 0 ? previous : null;
}
