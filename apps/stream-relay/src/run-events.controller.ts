import { Controller, Get, Inject, Logger, Param, Query, Req, Res, type BeforeApplicationShutdown } from '@nestjs/common';
import { authOf, type Principal } from '@wrs/auth';
import { rateLimitRejections, sseEventsSent, sseOpenStreams } from '@wrs/observability';
import { ProblemError, requestIdOf } from '@wrs/problem';
import type { Request, Response } from 'express';
import { CredentialWatch, type CredentialEndReason } from './credential-watch';
import { deliverObserved } from './event-delivery';
import type { RunEventStream } from './feed/run-event-stream';
import { RunEventStreams } from './feed/run-event-streams';
import { parseLastEventId } from './last-event-id';
import { sseFrameOf } from './sse-frames';
import { SseWriter } from './sse-writer';
import { Deadlines, Heartbeats } from './stream-timers';

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
  private readonly logger = new Logger('RunEventsController');
  /** One timer for all open streams' heartbeats, one for their maximum durations. */
  readonly heartbeats: Heartbeats<SseWriter>;
  readonly deadlines: Deadlines<RunEventStream>;

  constructor(
    private readonly streams: RunEventStreams,
    private readonly credentials: CredentialWatch,
    @Inject(RELAY_OPTIONS) private readonly options: RelayOptions,
  ) {
    this.heartbeats = new Heartbeats(options.heartbeatMs);
    this.deadlines = new Deadlines(options.maxDurationMs);
  }

  @Get(':runId/events')
  async stream(
    @Req() req: Request,
    @Res() res: Response,
    @Param('runId') runId: string,
    @Query('lastEventId') lastEventIdQuery: unknown,
  ): Promise<void> {
    const principal = authOf(req);
    const after = parseLastEventId(req.header('last-event-id'), lastEventIdQuery);
    const opened = await this.streams.open(principal.workspaceId, runId, after);
    switch (opened.kind) {
      case 'not_found':
        throw new ProblemError('run_not_found');
      case 'finished':
        // The client already has the terminal event: 204 tells an EventSource to stop reconnecting.
        res.status(204).end();
        return;
      case 'too_many_streams':
        rateLimitRejections.inc({ limit: 'event_streams' });
        throw new ProblemError('too_many_streams', { headers: { 'Retry-After': '5' }, params: { limit: opened.limit } });
      case 'stream':
        // Not awaited: Express's and Nest's handlers of the request finish now rather than living as long
        // as the stream (about 3 KiB per idle stream). A failure once streaming is logged and ends it.
        void this.pipe(res, principal, opened.stream).catch((error: unknown) => {
          void opened.stream.close();
          this.streamFailed(req, res, error);
        });
        return;
      default: {
        const unexpected: never = opened;
        throw new Error(`unexpected ${JSON.stringify(unexpected)}`);
      }
    }
  }

  private async pipe(res: Response, principal: Principal, stream: RunEventStream): Promise<void> {
    const sse = new SseWriter(res, this.options);
    sse.open(this.options.retryMs);
    sseOpenStreams.inc();
    this.heartbeats.add(sse);
    this.deadlines.add(stream);
    res.on('close', () => void stream.close());
    // A client that hung up while the stream was opening fired 'close' already: free its place now.
    if (res.destroyed) {
      void stream.close();
    }
    // The stream lives no longer than its credential: expiry, revocation or logout, seen on any replica.
    let ended: CredentialEndReason | undefined;
    const unwatch = this.credentials.watch(principal, (reason) => {
      ended = reason;
      void stream.close();
    });
    try {
      for await (const item of stream) {
        if (sse.closed || ended) {
          break;
        }
        if (item.kind === 'reset') {
          await sse.event(item.id, 'reset', item.json);
          sseEventsSent.inc({ type: 'reset' });
        } else {
          const { event } = item;
          await deliverObserved(event, () => sse.frame(sseFrameOf(event)));
        }
      }
    } finally {
      sseOpenStreams.dec();
      this.heartbeats.delete(sse);
      this.deadlines.delete(stream);
      unwatch();
      await stream.close();
      if (ended) {
        // A comment, not an event: event ids are JetStream sequences, and this is none. The client
        // resumes with Last-Event-ID and a fresh credential.
        sse.comment(`end ${ended}`);
      }
      sse.end();
    }
  }

  private streamFailed(req: Request, res: Response, error: unknown): void {
    const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched route';
    this.logger.error(
      `stream failed on ${req.method} ${route} (request ${requestIdOf(req)}): ${error instanceof Error ? error.stack : String(error)}`,
    );
    res.end();
  }

  /** SIGTERM: end every stream cleanly (clients reconnect with Last-Event-ID elsewhere). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.streams.closeAll();
  }
}
