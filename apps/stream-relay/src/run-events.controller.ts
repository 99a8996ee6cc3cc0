import { Controller, Get, Inject, Param, Query, Req, Res, type BeforeApplicationShutdown } from '@nestjs/common';
import { authOf, type Principal } from '@wrs/auth';
import { isTerminalEventType, isUuid, toRunResource, type RunView } from '@wrs/domain';
import { EffectiveLimits } from '@wrs/limits';
import { RunQueries } from '@wrs/persistence';
import { rateLimitRejections, sseEventsSent, sseOpenStreams } from '@wrs/observability';
import { ProblemError } from '@wrs/problem';
import type { Request, Response } from 'express';
import { CredentialWatch, type CredentialEndReason } from './credential-watch';
import { deliverObserved } from './event-delivery';
import { knownSuffices } from './feed/catch-up';
import type { FeedEvent, Subscription } from './feed/feed-event';
import { RunEventFeed } from './feed/run-event-feed';
import { StreamLeases, type StreamLease } from './feed/stream-leases';
import { parseLastEventId } from './last-event-id';
import { SseWriter } from './sse-writer';

export const RELAY_OPTIONS = Symbol('RELAY_OPTIONS');

export interface RelayOptions {
  readonly heartbeatMs: number;
  readonly retryMs: number;
  /** A stream is closed after this long; the client resumes with Last-Event-ID. */
  readonly maxDurationMs: number;
  readonly maxBufferedBytes: number;
  readonly drainTimeoutMs: number;
}

@Controller('runs')
export class RunEventsController implements BeforeApplicationShutdown {
  /** Open streams, so a shutdown can end them and their clients resume on another replica at once. */
  private readonly open = new Set<Subscription>();

  constructor(
    private readonly feed: RunEventFeed,
    private readonly queries: RunQueries,
    private readonly leases: StreamLeases,
    private readonly limits: EffectiveLimits,
    private readonly credentials: CredentialWatch,
    @Inject(RELAY_OPTIONS) private readonly options: RelayOptions,
  ) {}

  @Get(':runId/events')
  async stream(
    @Req() req: Request,
    @Res() res: Response,
    @Param('runId') runId: string,
    @Query('lastEventId') lastEventIdQuery: unknown,
  ): Promise<void> {
    const principal = authOf(req);
    const { workspaceId } = principal;
    const after = parseLastEventId(req.header('last-event-id'), lastEventIdQuery);
    if (!isUuid(runId)) {
      throw new ProblemError('run_not_found');
    }
    // The subject carries the caller's workspace, so another workspace's run is simply not found.
    // A run active since the relay started is known to its firehose: no request to JetStream (unless
    // the client has seen further than the firehose has).
    const known = await this.feed.known(workspaceId, runId);
    const last = knownSuffices(known, after) ? known : await this.feed.last(workspaceId, runId);
    if (!last && !(await this.queries.find(workspaceId, runId))) {
      throw new ProblemError('run_not_found');
    }
    if (last && isTerminalEventType(last.envelope.type) && last.seq <= after) {
      // The client already has the terminal event: 204 tells an EventSource to stop reconnecting.
      res.status(204).end();
      return;
    }
    const { maxEventStreams } = await this.limits.for(workspaceId);
    const lease = await this.leases.acquire(workspaceId, maxEventStreams);
    if (!lease.granted) {
      rateLimitRejections.inc({ limit: 'event_streams' });
      throw new ProblemError('too_many_streams', { headers: { 'Retry-After': '5' }, params: { limit: maxEventStreams } });
    }
    try {
      await this.pipe(res, principal, runId, after, last, lease.lease);
    } finally {
      await lease.lease.release();
    }
  }

  private async pipe(
    res: Response,
    principal: Principal,
    runId: string,
    after: number,
    last: FeedEvent | null,
    lease: StreamLease,
  ): Promise<void> {
    const { workspaceId } = principal;
    const subscription = await this.feed.follow(workspaceId, runId, after, last);
    this.open.add(subscription);
    const sse = new SseWriter(res, this.options);
    sse.open(this.options.retryMs);
    sseOpenStreams.inc();
    const heartbeat = setInterval(() => {
      sse.heartbeat();
      void lease.renew();
    }, this.options.heartbeatMs);
    const deadline = setTimeout(() => void subscription.close(), this.options.maxDurationMs);
    res.on('close', () => void subscription.close());
    // The stream lives no longer than its credential: expiry, revocation or logout, seen on any replica.
    let ended: CredentialEndReason | undefined;
    const unwatch = this.credentials.watch(principal, (reason) => {
      ended = reason;
      void subscription.close();
    });
    try {
      if (!last) {
        // Accepted but without any event left (or yet): a run that has state but lost its events says so.
        const run = await this.resetIfEventsWereRemoved(sse, workspaceId, runId, after, null);
        if (run?.terminal) {
          return;
        }
      }
      let first = true;
      for await (const event of subscription) {
        if (sse.closed || ended) {
          break;
        }
        if (first) {
          first = false;
          await this.resetIfEventsWereRemoved(sse, workspaceId, runId, after, event);
        }
        await deliverObserved(event, () => sse.event(event.seq, event.envelope.type, event.json));
        if (isTerminalEventType(event.envelope.type)) {
          break;
        }
      }
    } finally {
      sseOpenStreams.dec();
      clearInterval(heartbeat);
      clearTimeout(deadline);
      unwatch();
      this.open.delete(subscription);
      await subscription.close();
      if (ended) {
        // A comment, not an event: event ids are JetStream sequences, and this is none. The client
        // resumes with Last-Event-ID and a fresh credential.
        sse.comment(`end ${ended}`);
      }
      sse.end();
    }
  }

  /** SIGTERM: end every stream cleanly (clients reconnect with Last-Event-ID elsewhere). */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.open].map((s) => s.close()));
  }

  /**
   * Never a silent gap: if the run's events right after `after` are gone (retention, purge), the
   * stream starts with a `reset` event carrying the run's current state and the first id still held.
   */
  private async resetIfEventsWereRemoved(
    sse: SseWriter,
    workspaceId: string,
    runId: string,
    after: number,
    first: FeedEvent | null,
  ): Promise<RunView | null> {
    const gap = first ? first.previous !== null && first.previous > after : after === 0;
    if (!gap) {
      return null;
    }
    const run = await this.queries.find(workspaceId, runId);
    if (!first && !run) {
      return null; // accepted, not yet created: nothing was removed
    }
    // The run had no event when the stream opened, and has a row now: the worker may have created
    // and projected it in between. Only when its events are still missing after the row was read were
    // they removed; otherwise the subscription delivers them all, and a reset would be a false alarm
    // (found by the chaos run: followers of just-created runs got `reset` at id 0).
    if (!first && (await this.feed.last(workspaceId, runId))) {
      return null;
    }
    const firstAvailableId = first?.seq ?? null;
    const data = JSON.stringify({
      type: 'reset',
      runId,
      workspaceId,
      time: new Date().toISOString(),
      data: { reason: 'events_removed', firstAvailableId, run: run ? toRunResource(run) : null },
    });
    await sse.event(firstAvailableId === null ? after : firstAvailableId - 1, 'reset', data);
    sseEventsSent.inc({ type: 'reset' });
    return run;
  }
}
