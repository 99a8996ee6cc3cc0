import { Controller, Delete, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { authOf, clearedSessionCookie, SessionStore, sessionCookie } from '@wrs/auth';
import type { Immutable, Session } from '@wrs/contracts/types';
import { ProblemError } from '@wrs/problem';
import type { Request, Response } from 'express';
import { toSession } from './session-resource';

export const SESSION_TTL = Symbol('SESSION_TTL');
/** Tells every replica that a session signed out (the revocation stream): its open event streams end. */
export const SESSION_ENDS = Symbol('SESSION_ENDS');

export interface SessionEnds {
  endSession(sessionId: string): Promise<void>;
}

/**
 * Browser sessions: a bearer token is exchanged once for an HttpOnly, Secure, SameSite=Strict cookie
 * holding an opaque session id; the answer carries the CSRF token the page must send with changes.
 */
@Controller('sessions')
export class SessionsController {
  constructor(
    private readonly sessions: SessionStore,
    @Inject(SESSION_TTL) private readonly ttlSeconds: number,
    @Inject(SESSION_ENDS) private readonly ends: SessionEnds,
  ) {}

  @Post()
  async create(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<Immutable<Session>> {
    const principal = authOf(req);
    if (principal.via !== 'bearer') {
      throw new ProblemError('token_missing', { detail: 'a session is made from a bearer token' });
    }
    // A session never outlives the token it was made from: revoking or expiring the token ends it.
    const now = Math.floor(Date.now() / 1000);
    const expiresAt = Math.min(now + this.ttlSeconds, principal.expiresAt);
    const { id, session } = await this.sessions.create({
      workspaceId: principal.workspaceId,
      subject: principal.subject,
      tokenId: principal.tokenId,
      expiresAt,
    });
    res.status(201).setHeader('Set-Cookie', sessionCookie(id, expiresAt - now));
    res.setHeader('Cache-Control', 'no-store');
    return toSession({ workspaceId: session.workspaceId, subject: session.subject, expiresAt, csrfToken: session.csrfToken });
  }

  @Get('current')
  current(@Req() req: Request, @Res({ passthrough: true }) res: Response): Immutable<Session> {
    const principal = authOf(req);
    if (principal.via !== 'session' || !principal.csrfToken) {
      throw new ProblemError('session_invalid');
    }
    res.setHeader('Cache-Control', 'no-store');
    return toSession({
      workspaceId: principal.workspaceId,
      subject: principal.subject,
      expiresAt: principal.expiresAt,
      csrfToken: principal.csrfToken,
    });
  }

  /** Sign out: the session is deleted server-side and the cookie cleared. */
  @Delete('current')
  @HttpCode(204)
  async end(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    const principal = authOf(req);
    if (principal.via !== 'session' || !principal.sessionId) {
      throw new ProblemError('session_invalid');
    }
    // The relays are told first: if that fails the session is still there, and a retry ends both.
    await this.ends.endSession(principal.sessionId);
    await this.sessions.delete(principal.sessionId);
    res.setHeader('Set-Cookie', clearedSessionCookie());
  }
}
