import type { NextFunction, Request, Response } from 'express';
import type { AppLogger } from './logger';

/**
 * One line per request: method, the route template (never the raw URL, which could carry ids or a
 * refused credential), status, duration, request id, and the workspace and run when known.
 */
export function requestLogMiddleware(logger: AppLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => log(logger, req, res, started, 'request'));
    res.on('close', () => {
      if (!res.writableFinished) {
        log(logger, req, res, started, 'request closed by the client');
      }
    });
    next();
  };
}

function log(logger: AppLogger, req: Request, res: Response, started: bigint, msg: string): void {
  const auth = (req as Request & { auth?: { workspaceId: string } }).auth;
  const fields = {
    method: req.method,
    route: req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched',
    status: res.statusCode,
    durationMs: Number(process.hrtime.bigint() - started) / 1e6,
    requestId: (req as Request & { requestId?: string }).requestId,
    ...(auth ? { workspaceId: auth.workspaceId } : {}),
    ...(typeof req.params?.['runId'] === 'string' ? { runId: req.params['runId'] } : {}),
  };
  if (res.statusCode >= 500) {
    logger.error(fields, msg);
  } else {
    logger.info(fields, msg);
  }
}
