import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemError } from '@wrs/problem';
import type { Request } from 'express';
import { AccessTokenVerifier, TokenError, type VerifiedToken } from '../access-token';
import { IS_PUBLIC } from './public.decorator';

export const ACCESS_TOKEN_VERIFIER = Symbol('ACCESS_TOKEN_VERIFIER');
export const WORKSPACE_HEADER = 'X-Service-Workspace-ID';

declare module 'express-serve-static-core' {
  interface Request {
    auth?: VerifiedToken;
  }
}

/**
 * Every route needs a bearer token unless marked @Public(). The workspace comes from the token; a
 * workspace header that names another workspace is a configuration mistake and is refused (403).
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(ACCESS_TOKEN_VERIFIER) private readonly verifier: AccessTokenVerifier,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const req = context.switchToHttp().getRequest<Request>();
    req.auth = this.authenticate(req.header('authorization'));
    const named = req.header(WORKSPACE_HEADER);
    if (named !== undefined && named !== req.auth.workspaceId) {
      throw new ProblemError('workspace_mismatch');
    }
    return true;
  }

  private authenticate(authorization: string | undefined): VerifiedToken {
    if (!authorization) {
      throw new ProblemError('token_missing', { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    const match = /^Bearer +([^\s]+) *$/i.exec(authorization);
    if (!match?.[1]) {
      throw new ProblemError('token_malformed', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_request"' } });
    }
    try {
      return this.verifier.verify(match[1]);
    } catch (error) {
      if (error instanceof TokenError) {
        throw new ProblemError(error.code, {
          detail: error.message,
          headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
        });
      }
      throw error;
    }
  }
}

/** The verified token of a request that passed the guard. */
export function authOf(req: Request): VerifiedToken {
  if (!req.auth) {
    throw new Error('route reached without authentication');
  }
  return req.auth;
}
