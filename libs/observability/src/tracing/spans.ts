import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { tracer } from './tracing';

export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The parent; the active context when not given. */
  readonly parent?: Context;
}

/**
 * Runs `work` inside a new span (the active one while it runs): ended when `work` settles, marked as
 * an error when it throws. A no-op span when tracing is off.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} },
    options.parent ?? context.active(),
  );
  try {
    return await context.with(trace.setSpan(options.parent ?? context.active(), span), () => work(span));
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

export { SpanKind };

/**
 * Runs `work` once for many items (a batch), with one span per item continuing that item's own trace:
 * every span covers the whole batch, as each item was handled by all of it. `within(i, fn)` runs `fn`
 * in item i's span context (so what it logs or starts belongs to that item's trace).
 */
export async function inSpans<T>(
  name: string,
  options: Omit<SpanOptions, 'parent'>,
  parents: readonly Context[],
  work: (within: <R>(index: number, fn: () => R) => R) => Promise<T>,
): Promise<T> {
  const spans = parents.map((parent) => {
    const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} }, parent);
    return { span, active: trace.setSpan(parent, span) };
  });
  try {
    return await work((index, fn) => {
      const active = spans[index]?.active;
      return active ? context.with(active, fn) : fn();
    });
  } catch (error) {
    for (const { span } of spans) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    throw error;
  } finally {
    spans.forEach(({ span }) => span.end());
  }
}
