import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { addLogContext } from './log-context';
import type { AppLogger } from './logger';
import { httpRequestDuration } from './metrics/catalogue';
import { methodLabel } from './metrics/http-method';
import { tracer } from './tracing/tracing';

/**
 * One line, one histogram sample and one server span per request: method, the route template (never
 * the raw URL, which could carry ids or a refused credential), status, duration, request id, trace id,
 * and the workspace and run when known. The span continues a W3C `traceparent` the caller sent.
 */
export function requestLogMiddleware(logger: AppLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    // Span names and attributes take the method as a label does: a client can send any method name.
    const method = methodLabel(req.method);
    const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
    const active = addLogContext(trace.setSpan(parent, span), { requestId: (req as Request & { requestId?: string }).requestId });
    // Socket events fire outside this request's async context, so the answer's line is written in it
    // explicitly. The request and response are not bound as emitters (that patched every listener
    // method per request, 5-8 % of the api's CPU): the body reader resumes in the request's context.
    res.on('finish', () => context.with(active, () => finish(logger, req, res, started, span, 'request')));
    res.on('close', () => {
      if (!res.writableFinished) {
        context.with(active, () => finish(logger, req, res, started, span, 'request closed by the client'));
      }
    });
    context.with(active, next);
  };
}

function finish(logger: AppLogger, req: Request, res: Response, started: bigint, span: Span, msg: string): void {
  const auth = (req as Request & { auth?: { workspaceId: string } }).auth;
  const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const method = methodLabel(req.method);
  httpRequestDuration.observe({ route, method, status: String(res.statusCode) }, seconds);
  span.updateName(`${method} ${route}`);
  span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
  if (res.statusCode >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
  const spanContext = span.spanContext();
  const fields = {
    method: req.method,
    route,
    status: res.statusCode,
    durationMs: seconds * 1000,
    requestId: (req as Request & { requestId?: string }).requestId,
    ...(trace.isSpanContextValid(spanContext) ? { traceId: spanContext.traceId } : {}),
    ...(auth ? { workspaceId: auth.workspaceId } : {}),
    ...(typeof req.params?.['runId'] === 'string' ? { runId: req.params['runId'] } : {}),
  };
  if (res.statusCode >= 500) {
    logger.error(fields, msg);
  } else {
    logger.info(fields, msg);
  }
}
