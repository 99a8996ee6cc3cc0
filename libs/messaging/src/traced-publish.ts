import type { JetStreamClient, JetStreamPublishOptions, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import { currentLogContext, inSpan, injectTraceContext, SpanKind } from '@wrs/observability';

/** Header carrying the id of the HTTP request a message (and the events decided from it) came from. */
export const REQUEST_ID_HEADER = 'Request-Id';

/**
 * Publishes inside a producer span and carries the trace context (W3C `traceparent`) and the request
 * id in the message headers, so the worker and relay continue the same trace and log the same ids.
 * `operation` names the span: a small fixed set, never a subject with ids in it.
 */
export function publishTraced(
  js: JetStreamClient,
  operation: string,
  subject: string,
  payload: string | Uint8Array,
  options: Partial<JetStreamPublishOptions> = {},
): Promise<PubAck> {
  return inSpan(
    `publish ${operation}`,
    { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'nats', 'messaging.operation.name': operation } },
    async () => {
      const headers: MsgHdrs = options.headers ?? natsHeaders();
      injectTraceContext(headers);
      const requestId = currentLogContext().requestId;
      if (requestId && !headers.has(REQUEST_ID_HEADER)) {
        headers.set(REQUEST_ID_HEADER, requestId);
      }
      return js.publish(subject, payload, { ...options, ...(headers.keys().length > 0 ? { headers } : {}) });
    },
  );
}
