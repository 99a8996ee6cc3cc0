import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Authenticator } from '../authenticator';
import type { Principal } from '../principal';
import { IS_PUBLIC } from './public.decorator';

export const AUTHENTICATOR = Symbol('AUTHENTICATOR');

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
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const req = context.switchToHttp().getRequest<Request>();
    req.auth = await this.authenticator.authenticate(req);
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
