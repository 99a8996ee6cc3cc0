import type { INestApplication } from '@nestjs/common';
import helmet from 'helmet';

/** Headers a browser may read from our answers, beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = ['X-Request-ID', 'ETag', 'Location', 'Idempotent-Replayed', 'Retry-After', 'Allow', 'RateLimit', 'RateLimit-Policy'];
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'Last-Event-ID', 'X-CSRF-Token', 'X-Request-ID', 'X-Service-Workspace-ID'];

/**
 * Security headers (helmet), no X-Powered-By, and CORS for the configured origins only (none by
 * default: the console is served from the same origin and needs no CORS).
 */
export function hardenForBrowsers(app: INestApplication, allowedOrigins: readonly string[]): void {
  app.use(
    helmet({
      contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      crossOriginResourcePolicy: { policy: 'same-origin' },
    }),
  );
  app.enableCors({
    origin: allowedOrigins.length > 0 ? [...allowedOrigins] : false,
    credentials: true,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
