import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-ID';

/** A client-supplied id is kept only if it is short and made of safe characters (no log injection). */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    requestId?: string;
  }
}

/** The client's request id if it is well formed, else a new one. */
export function acceptableRequestId(offered: string | undefined): string {
  return offered && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
}

export function requestIdOf(req: Request): string {
  return req.requestId ?? 'unknown';
}

/** Gives every request an id and echoes it on every response, errors included. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  req.requestId = acceptableRequestId(req.header(REQUEST_ID_HEADER));
  res.setHeader(REQUEST_ID_HEADER, req.requestId);
  next();
}
