import { context, propagation, ROOT_CONTEXT, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';

/** The part of NATS message headers (`MsgHdrs`) trace context needs. */
export interface MessageHeaders {
  get(key: string): string;
  set(key: string, value: string): void;
  keys(): string[];
}

const setter: TextMapSetter<MessageHeaders> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<MessageHeaders> = {
  get: (carrier, key) => carrier.get(key) || undefined,
  keys: (carrier) => carrier.keys(),
};

/** Writes the current trace context (W3C `traceparent`) into a message's headers; nothing when tracing is off. */
export function injectTraceContext(headers: MessageHeaders, from: Context = context.active()): void {
  propagation.inject(from, headers, setter);
}

/** `base` (the root context by default) with the trace context a message carries, when it carries one. */
export function extractTraceContext(headers: MessageHeaders | undefined, base: Context = ROOT_CONTEXT): Context {
  return headers ? propagation.extract(base, headers, getter) : base;
}
