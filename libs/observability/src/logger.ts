import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import { logContextFields } from './log-context';

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

/**
 * JSON lines on stdout, one logger per service; `LOG_LEVEL` sets the level. JSON in every environment
 * (no pretty printer is shipped): pipe through `npx pino-pretty` locally if you want colours. Every line
 * carries the run, workspace, request and trace it was written for (see log-context.ts).
 */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): AppLogger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    mixin: logContextFields,
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
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

  /** An object message becomes fields (its `msg` the message): `new Logger('x').debug({ msg, seq })`. */
  debug(message: unknown, context?: string): void {
    if (message !== null && typeof message === 'object') {
      const { msg, ...fields } = message as Record<string, unknown>;
      this.logger.debug({ context, ...fields }, String(msg));
    } else {
      this.logger.debug({ context }, String(message));
    }
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
