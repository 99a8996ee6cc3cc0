import { BadRequestException, Catch, HttpException, HttpStatus, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ProblemCode } from './catalogue';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem-body';
import { isDependencyFailure } from './dependency-failure';
import { ProblemError } from './problem-error';
import { requestIdOf } from './request-id';

/** Maps the few HTTP exceptions Nest raises by itself (no route, body parser) to catalogue codes. */
const NEST_STATUS_CODES: Partial<Record<number, ProblemCode>> = {
  [HttpStatus.NOT_FOUND]: 'route_not_found',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'payload_too_large',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'unsupported_media_type',
  [HttpStatus.NOT_ACCEPTABLE]: 'not_acceptable',
  [HttpStatus.BAD_REQUEST]: 'validation_failed',
};

/** How Nest words Express's failure to decode a path parameter (`/runs/%ZZ`), as a BadRequestException. */
const UNDECODABLE_PARAM = 'Failed to decode param';

/**
 * The one place errors become HTTP: every failure leaves as application/problem+json with a stable
 * `code`. Unexpected errors are 500 with `retryable: true` and nothing internal in the body.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const { code, error } = this.classify(exception);
    if (code === 'dependency_unavailable' && !error) {
      this.logger.warn(
        `dependency unavailable on ${req.method} ${req.route?.path ?? 'unmatched route'} (request ${requestIdOf(req)}): ${describe(exception).split('\n')[0]}`,
      );
    }
    if (code === 'internal_error') {
      this.logger.error(
        `unexpected error on ${req.method} ${req.route?.path ?? 'unmatched route'} (request ${requestIdOf(req)}): ${describe(exception)}`,
      );
    }
    if (res.headersSent) {
      // A streaming response already started (SSE): the only honest thing left is to end it.
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(error?.options.headers ?? {})) {
      res.setHeader(name, value);
    }
    if (
      code === 'dependency_unavailable' &&
      !Object.keys(error?.options.headers ?? {}).some((name) => name.toLowerCase() === 'retry-after')
    ) {
      // The contract's 503 says when to retry: a client that follows it must not have to guess.
      res.setHeader('Retry-After', '1');
    }
    const body = problemBody(code, requestIdOf(req), {
      ...(error?.options.detail ? { detail: error.options.detail } : {}),
      ...(error?.options.params ? { params: error.options.params } : {}),
    });
    res.status(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  }

  private classify(exception: unknown): { code: ProblemCode; error?: ProblemError } {
    if (exception instanceof ProblemError) {
      return { code: exception.code, error: exception };
    }
    if (isDependencyFailure(exception)) {
      return { code: 'dependency_unavailable' };
    }
    if (exception instanceof BadRequestException && exception.message.startsWith(UNDECODABLE_PARAM)) {
      // A path whose percent-encoding does not decode names nothing the contract has: 404, as any other path would be.
      return { code: 'route_not_found' };
    }
    if (exception instanceof HttpException) {
      const code = NEST_STATUS_CODES[exception.getStatus()];
      if (code) {
        return { code };
      }
    }
    return { code: 'internal_error' };
  }
}

function describe(exception: unknown): string {
  return exception instanceof Error ? `${exception.name}: ${exception.message}\n${exception.stack ?? ''}` : String(exception);
}
