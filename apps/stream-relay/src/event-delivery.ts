import { Logger } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { REQUEST_ID_HEADER } from '@wrs/messaging';
import { addLogContext, extractTraceContext, inSpan, SpanKind, sseEventsSent } from '@wrs/observability';
import type { FeedEvent } from './feed/feed-event';

const logger = new Logger('sse');

/** Events this relay has traced and logged already: a fan-out traces its event once, not per stream. */
const observed = new WeakSet<FeedEvent>();

/** The counter per event type, its labels resolved once. */
const sentCounters = new Map<string, { inc(): void }>();

/**
 * Sends one event and counts it. The first stream on this relay to send an event does so inside a
 * span that continues the trace of what decided it (the context travels in the message headers) and
 * logs it at debug level with the run, workspace, the request that caused it and the trace id: the
 * relay's end of one request's trail through the services. The other streams of a fan-out only send
 * and count (a span, a context and a log line per stream made delivery to many streams slow).
 */
export function deliverObserved(event: FeedEvent, send: () => Promise<void>): Promise<void> {
  if (observed.has(event)) {
    return send().then(() => countSent(event.envelope.type));
  }
  observed.add(event);
  const requestId = event.headers?.get(REQUEST_ID_HEADER);
  const parent = addLogContext(extractTraceContext(event.headers, context.active()), {
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
