import { Logger } from '@nestjs/common';
import type { Context } from '@opentelemetry/api';
import { REQUEST_ID_HEADER } from '@wrs/messaging';
import { addLogContext, extractTraceContext, inSpan, SpanKind, sseEventsSent } from '@wrs/observability';
import type { FeedEvent } from './feed/feed-event';

const logger = new Logger('sse');

/** Events this relay has traced and logged already: a fan-out traces its event once, not per stream. */
const observed = new WeakSet<FeedEvent>();

/** The counter per event type, its labels resolved once. */
const sentCounters = new Map<string, { inc(): void }>();

/**
 * Sends one event and counts it. Only the first stream on this relay traces and logs it (continuing the
 * trace from the message headers); doing that per stream made fan-out to many streams slow.
 */
export function deliverObserved(event: FeedEvent, send: () => void | Promise<void>, streamContext: Context): void | Promise<void> {
  if (observed.has(event)) {
    const sent = send();
    if (sent) {
      return sent.then(() => countSent(event.envelope.type));
    }
    countSent(event.envelope.type);
    return;
  }
  observed.add(event);
  const requestId = event.headers?.get(REQUEST_ID_HEADER);
  // The stream's own request context: an event without a request of its own (one the reconciler
  // decided) is logged with the ids of the stream's request, as the firehose's turn has none.
  const parent = addLogContext(extractTraceContext(event.headers, streamContext), {
    runId: event.envelope.runId,
    workspaceId: event.envelope.workspaceId,
    ...(requestId ? { requestId } : {}),
  });
  return inSpan(
    'deliver run.event',
    { kind: SpanKind.CONSUMER, parent, attributes: { 'wrs.event.type': event.envelope.type } },
    async () => {
      await send();
      countSent(event.envelope.type);
      logger.debug({ msg: 'event sent', seq: event.seq, type: event.envelope.type });
    },
  );
}

function countSent(type: string): void {
  let counter = sentCounters.get(type);
  if (counter === undefined) {
    counter = sseEventsSent.labels({ type });
    sentCounters.set(type, counter);
  }
  counter.inc();
}
