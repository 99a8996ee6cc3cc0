import { context, createContextKey, trace, type Context } from '@opentelemetry/api';

/** What a log line should say about the work in hand: the run, its workspace, the request behind it. */
export interface LogContext {
  readonly runId?: string;
  readonly workspaceId?: string;
  readonly requestId?: string;
}

/**
 * Kept in the OpenTelemetry context (not a separate AsyncLocalStorage) so that it follows the same
 * paths the trace does, including the request and response events bound to it (see request-log.ts).
 */
const LOG_CONTEXT = createContextKey('wrs.log-context');

/** Runs `work` so that every line logged inside it (also in callbacks it starts) carries `fields`. */
export function withLogContext<T>(fields: LogContext, work: () => T): T {
  return context.with(addLogContext(context.active(), fields), work);
}

/** `base` with `fields` added to its log context. */
export function addLogContext(base: Context, fields: LogContext): Context {
  return base.setValue(LOG_CONTEXT, { ...(base.getValue(LOG_CONTEXT) as LogContext | undefined), ...fields });
}

/** The log context of the work in hand (empty outside any). */
export function currentLogContext(): LogContext {
  return (context.active().getValue(LOG_CONTEXT) as LogContext | undefined) ?? {};
}

/**
 * The fields pino adds to every line: the current log context and, when a span is being recorded,
 * its trace and span ids (the same ids the trace backend shows, so a log line leads to its trace).
 */
export function logContextFields(): Record<string, string> {
  const fields: Record<string, string> = { ...currentLogContext() };
  const span = trace.getActiveSpan()?.spanContext();
  if (span && trace.isSpanContextValid(span)) {
    fields['traceId'] = span.traceId;
    fields['spanId'] = span.spanId;
  }
  return fields;
}
