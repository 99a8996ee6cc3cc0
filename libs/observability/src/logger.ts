import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/**
 * Paths that may hold a secret if a careless line ever logs a request or a config object: they are
 * censored whatever logs them. (Nothing here logs headers, cookies or bodies in the first place.)
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  'csrfToken',
  'token',
  'secret',
  'password',
  '*.secret',
  '*.token',
];

export type AppLogger = Logger;

/** JSON lines on stdout, one logger per service; `LOG_LEVEL` sets the level. */
export function createLogger(service: string, level: string): AppLogger {
  return pino({
    level,
    base: { service },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

/** Nest's own messages (and the problem filter's) go through the same JSON logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: AppLogger) {}

  /** Nest's `log` level is its start-up chatter (modules, routes): debug for us. */
  log(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, ...(trace ? { trace } : {}) }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
