import type { JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import { decodeRunEvent, previousOf, type RunEventEnvelope } from '@wrs/messaging';

export interface FeedEvent {
  readonly seq: number;
  /** The sequence of the run's previous event, when the message says (all events appended here do). */
  readonly previous: number | null;
  readonly envelope: RunEventEnvelope;
  /** The stored JSON, sent as it is. */
  readonly json: string;
  /** The message's headers: the trace context and request id of what decided the event. */
  readonly headers?: MsgHdrs | undefined;
}

import type { EventSink } from './event-firehose';

export type { EventSink };

/** A run's events after a client's last id, pushed to one sink. */
export interface Subscription {
  /** Starts delivering to `sink` (once); the sink's `end` follows the last event, or a failure. */
  start(sink: EventSink<FeedEvent>): void;
  /** Stops the subscription; its sink's `end` follows what was under way. */
  close(): Promise<void>;
}

export function feedEventOf(m: JsMsg): FeedEvent {
  return { seq: m.seq, previous: previousOf(m.headers), envelope: decodeRunEvent(m.data).envelope, json: m.string(), headers: m.headers };
}
