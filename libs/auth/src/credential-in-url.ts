import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '@wrs/problem';

/** Query parameters that carry credentials by convention: never accepted, whatever their value. */
const CREDENTIAL_PARAMETERS = new Set([
  'access_token',
  'token',
  'id_token',
  'refresh_token',
  'jwt',
  'auth',
  'authorization',
  'bearer',
  'api_key',
  'apikey',
  'api-key',
  'key',
  'secret',
  'client_secret',
  'password',
  'session',
  'csrf_token',
]);

/**
 * A credential in a URL ends up in proxy logs, browser history and Referer headers. Such a request is
 * refused with 400 `credential_in_url`, before anything else looks at it.
 */
export function credentialInUrlMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const query = req.originalUrl.indexOf('?');
  if (query !== -1) {
    const names = new URLSearchParams(req.originalUrl.slice(query + 1)).keys();
    for (const name of names) {
      if (CREDENTIAL_PARAMETERS.has(name.toLowerCase())) {
        next(new ProblemError('credential_in_url', { params: { parameter: name } }));
        return;
      }
    }
  }
  next();
}
