import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { Authenticator } from '../authenticator';
import type { Principal } from '../principal';
import { IS_PUBLIC } from './public.decorator';

export const AUTHENTICATOR = Symbol('AUTHENTICATOR');
/** Told of every request whose credential failed; it may throw instead (a 429 for too many failures). */
export const AUTH_FAILURE_HOOK = Symbol('AUTH_FAILURE_HOOK');
export type AuthFailureHook = (req: Request, failure: unknown) => Promise<void>;

declare module 'express-serve-static-core' {
  interface Request {
    auth?: Principal;
  }
}

/** Every route needs a credential (bearer token or browser session) unless marked @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(AUTHENTICATOR) private readonly authenticator: Authenticator,
    @Optional() @Inject(AUTH_FAILURE_HOOK) private readonly onFailure?: AuthFailureHook,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const req = context.switchToHttp().getRequest<Request>();
    try {
      req.auth = await this.authenticator.authenticate(req);
    } catch (failure) {
      await this.onFailure?.(req, failure);
      throw failure;
    }
    // A workspace's data must not stay in a shared or browser cache (set before the handler runs, so
    // errors after this point carry it too).
    context.switchToHttp().getResponse<Response>().setHeader('Cache-Control', 'no-store');
    return true;
  }
}

/** The principal of a request that passed the guard. */
export function authOf(req: Request): Principal {
  if (!req.auth) {
    throw new Error('route reached without authentication');
  }
  return req.auth;
}
