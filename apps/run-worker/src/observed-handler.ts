import type { JsMsg } from '@nats-io/jetstream';
import { context, type Context } from '@opentelemetry/api';
import { parseRunSubject, REQUEST_ID_HEADER, type Disposition } from '@wrs/messaging';
import { addLogContext, extractTraceContext, inSpan, inSpans, jetstreamRedeliveries, SpanKind, type LogContext } from '@wrs/observability';

/**
 * Wraps a consumer's handler: each message is one span continuing the publisher's trace, every log line
 * written meanwhile carries the run, workspace, request and trace ids, and redeliveries are counted.
 */
export function observedHandler(
  consumer: 'commands' | 'projection',
  idsOf: (message: JsMsg) => LogContext,
  handle: (message: JsMsg) => Promise<Disposition>,
): (message: JsMsg) => Promise<Disposition> {
  return (message) => {
    const parent = messageContext(consumer, idsOf, message);
    return inSpan(
      `handle ${consumer}`,
      { kind: SpanKind.CONSUMER, parent, attributes: { 'messaging.system': 'nats', 'messaging.consumer.group.name': consumer } },
      () => handle(message),
    );
  };
}

/**
 * The same for a handler of batches: one span per message (each covering the batch), and `within(i,
 * fn)` to run what follows from message i (telling the reconciler of its run) in that message's trace.
 */
export function observedBatchHandler(
  consumer: 'commands' | 'projection',
  idsOf: (message: JsMsg) => LogContext,
  handle: (messages: readonly JsMsg[], within: <R>(index: number, fn: () => R) => R) => Promise<Disposition[]>,
): (messages: readonly JsMsg[]) => Promise<Disposition[]> {
  return (messages) =>
    inSpans(
      `handle ${consumer}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.consumer.group.name': consumer,
          'messaging.batch.message_count': messages.length,
        },
      },
      messages.map((message) => messageContext(consumer, idsOf, message)),
      (within) => handle(messages, within),
    );
}

/** The context a message's handling runs in: its publisher's trace, its ids for the log; counts redeliveries. */
function messageContext(consumer: 'commands' | 'projection', idsOf: (message: JsMsg) => LogContext, message: JsMsg): Context {
  if (message.info.redelivered) {
    jetstreamRedeliveries.inc({ consumer });
  }
  const requestId = message.headers?.get(REQUEST_ID_HEADER);
  return addLogContext(extractTraceContext(message.headers, context.active()), {
    ...idsOf(message),
    ...(requestId ? { requestId } : {}),
  });
}

/** The run and workspace of a message, for its log lines (none for a subject that names no run). */
export function idsFromSubject(message: { readonly subject: string }): LogContext {
  return parseRunSubject(message.subject) ?? {};
}
