import type { NextFunction, Request, Response } from 'express';
import { ANSWER_HEADERS } from './answer-headers';
import type { ProblemCode } from './catalogue';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem-body';
import { requestIdOf } from './request-id';

/** The answers ingress-nginx gives itself (custom-http-errors in deploy/kubernetes/base/ingress.yaml). */
const INGRESS_CODES: Record<string, ProblemCode> = {
  '413': 'payload_too_large',
  '502': 'dependency_unavailable',
  '503': 'dependency_unavailable',
  '504': 'upstream_timeout',
};

/**
 * ingress-nginx's error page: for `custom-http-errors` it asks the api for `GET /` with `X-Code`, and
 * we answer a problem with that status and nginx's `X-Request-ID`. A client sending X-Code itself only
 * gets a problem, so this is harmless.
 */
export function ingressErrorPageMiddleware(req: Request, res: Response, next: NextFunction): void {
  const code = req.path === '/' ? INGRESS_CODES[req.header('x-code') ?? ''] : undefined;
  if (!code) {
    next();
    return;
  }
  const body = problemBody(code, requestIdOf(req));
  // Answered before the answer-headers middleware runs: the headers every answer carries are set here.
  for (const [name, value] of Object.entries(ANSWER_HEADERS)) {
    res.setHeader(name, value);
  }
  res.status(body.status).setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Cache-Control', 'no-store');
  if (body.retryable) {
    res.setHeader('Retry-After', '1');
  }
  res.end(JSON.stringify(body));
}
