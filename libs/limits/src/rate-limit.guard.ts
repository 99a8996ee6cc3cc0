import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC, authOf } from '@wrs/auth';
import { RateLimiter, rateLimitHeaders } from '@wrs/messaging';
import { rateLimitRejections } from '@wrs/observability';
import { ProblemError } from '@wrs/problem';
import type { Request, Response } from 'express';
import { RATE_LIMIT_RIDER, type RateLimitRider } from './rate-limit-rider';
import { EffectiveLimits } from './workspace-limits';

export const RATE_LIMIT_FAILURES = Symbol('RATE_LIMIT_FAILURES');

/**
 * Per-workspace and per-token request rates, shared across replicas in Redis (a busy key's cells taken a
 * lease at a time: RateLeases), with RateLimit headers and a 429 with Retry-After. If Redis is unreachable
 * the request passes (fail open) and the miss is counted.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
    private readonly limits: EffectiveLimits,
    @Inject(RATE_LIMIT_FAILURES) private readonly onFailOpen: () => void,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const principal = authOf(req);
    const limits = await this.limits.for(principal.workspaceId);
    const rider = this.reflector.get<RateLimitRider | undefined>(RATE_LIMIT_RIDER, context.getHandler());
    const work = rider?.work(req, this.limiter.prefix);
    const policies = [
      { name: 'workspace', key: `ws:${principal.workspaceId}`, limit: limits.requestsPerMinute, windowSeconds: 60 },
      { name: 'token', key: `tok:${principal.tokenId}`, limit: limits.tokenRequestsPerMinute, windowSeconds: 60 },
    ];
    // A route with Redis work of its own asks Redis anyway; the others are served from this process's lease.
    const decision =
      rider && work ? await this.limiter.check(policies, { script: rider.script, ...work }) : await this.limiter.admit(policies);
    if (!decision) {
      this.onFailOpen();
      return true;
    }
    const res = http.getResponse<Response>();
    if (rider && decision.rider !== undefined) {
      this.handOver(rider, req, res, decision.rider);
    }
    const headers = rateLimitHeaders(decision);
    for (const [name, value] of Object.entries(headers)) {
      res.setHeader(name, value);
    }
    if (!decision.allowed) {
      rateLimitRejections.inc({ limit: 'requests' });
      throw new ProblemError('rate_limited', {
        headers: { ...headers, 'Retry-After': String(Math.max(1, decision.retryAfterSeconds)) },
        params: { policies: decision.policies.map((p) => ({ name: p.name, limit: p.limit, windowSeconds: p.windowSeconds })) },
      });
    }
    return true;
  }

  /** The rider's answer to the route; what it must release is released when the answer goes out without the route (a refused body). */
  private handOver(rider: RateLimitRider, req: Request, res: Response, reply: unknown): void {
    const release = rider.accept(req, reply);
    if (release.length > 0) {
      res.once('close', () => {
        if (!rider.taken(req)) {
          void this.limiter.release(release);
        }
      });
    }
  }
}
