import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { ANSWER_HEADERS } from '@wrs/problem';

/** Headers a browser may read from our answers, beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  'X-Request-ID',
  'ETag',
  'Location',
  'Idempotent-Replayed',
  'Retry-After',
  'Allow',
  'RateLimit',
  'RateLimit-Policy',
  'Preference-Applied',
  'WWW-Authenticate',
];
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Cancel-After',
  'Idempotency-Key',
  'If-Match',
  // Ignored by GET /runs/{runId}, but a page may send it: refusing it in the preflight would fail the request.
  'If-None-Match',
  'Last-Event-ID',
  'Prefer',
  'X-CSRF-Token',
  'X-Request-ID',
  'X-Service-Workspace-ID',
];

/** What every answer needs, page or not (ANSWER_HEADERS, which the edge's own answers carry too). */
const ANSWER_HEADER_ENTRIES = Object.entries(ANSWER_HEADERS);

function answerHeaders(_req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of ANSWER_HEADER_ENTRIES) {
    res.setHeader(name, value);
  }
  next();
}

/**
 * The headers every answer needs and CORS for the configured origins only (none by default: the
 * console is served from the same origin and needs no CORS). A page's headers are pageSecurityHeaders.
 */
export function hardenForBrowsers(app: INestApplication, allowedOrigins: readonly string[]): void {
  app.use(answerHeaders);
  app.enableCors({
    origin: allowedOrigins.length > 0 ? [...allowedOrigins] : false,
    credentials: true,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}

/**
 * Page headers (helmet: CSP, no framing, no referrer, isolation) for the console's files only; API answers
 * are never pages. X-Frame-Options mirrors frame-ancestors for browsers without CSP support.
 */
export function pageSecurityHeaders(contentSecurityPolicy: Record<string, readonly string[]>): RequestHandler {
  const framedByNone = contentSecurityPolicy['frame-ancestors']?.includes("'none'") ?? false;
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    xFrameOptions: { action: framedByNone ? 'deny' : 'sameorigin' },
  });
}
