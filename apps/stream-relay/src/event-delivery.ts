import { Logger } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { REQUEST_ID_HEADER } from '@wrs/messaging';
import { addLogContext, extractTraceContext, inSpan, SpanKind, sseEventsSent } from '@wrs/observability';
import type { FeedEvent } from './feed/feed-event';

const logger = new Logger('sse');

/**
 * Sends one event inside a span that continues the trace of what decided it (the context travels in
 * the message headers), counts it, and logs it at debug level with the run, workspace, the request
 * that caused it and the trace id: the relay's end of one request's trail through the services.
 */
export function deliverObserved(event: FeedEvent, send: () => Promise<void>): Promise<void> {
  const requestId = event.headers?.get(REQUEST_ID_HEADER);
  const parent = addLogContext(extractTraceContext(event.headers, context.active()), {
    runId: event.envelope.runId,
    workspaceId: event.envelope.workspaceId,
    ...(requestId ? { requestId } : {}),
  });
  return inSpan('deliver run.event', { kind: SpanKind.CONSUMER, parent, attributes: { 'wrs.event.type': event.envelope.type } }, async () => {
    await send();
    sseEventsSent.inc({ type: event.envelope.type });
    logger.debug({ msg: 'event sent', seq: event.seq, type: event.envelope.type });
  });
}
