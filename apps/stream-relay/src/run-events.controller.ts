import { Controller, Get, Inject, Logger, Param, Query, Req, Res, type BeforeApplicationShutdown } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { authOf, type Principal } from '@wrs/auth';
import { rateLimitRejections, sseEventsSent, sseOpenStreams } from '@wrs/observability';
import { ProblemError, requestIdOf } from '@wrs/problem';
import type { Request, Response } from 'express';
import { CredentialWatch, type CredentialEndReason } from './credential-watch';
import { deliverObserved } from './event-delivery';
import type { RunEventStream, StreamItem, StreamSink } from './feed/run-event-stream';
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
        // The route returns at once: Express's and Nest's handlers of the request finish now rather than
        // living as long as the stream. Events are pushed to it from here on.
        try {
          this.pipe(res, principal, opened.stream);
        } catch (error) {
          void opened.stream.close();
          this.streamFailed(req, res, error);
          return;
        }
        // Opened while the relay ends its streams (SIGTERM): ended like them, a 200 with its retry line,
        // so an EventSource reconnects to another replica (a 503 would make it give up).
        if (this.streams.ending) {
          void opened.stream.close();
        }
        return;
      default: {
        const unexpected: never = opened;
        throw new Error(`unexpected ${JSON.stringify(unexpected)}`);
      }
    }
  }

  private pipe(res: Response, principal: Principal, stream: RunEventStream): void {
    const sse = new SseWriter(res, this.options);
    sse.open(this.options.retryMs);
    sseOpenStreams.inc();
    const relayed = new RelayedStream(sse, stream, this);
    this.heartbeats.add(sse);
    this.deadlines.add(stream);
    res.on('close', () => void stream.close());
    // The stream lives no longer than its credential: expiry, revocation or logout, seen on any replica.
    relayed.unwatch = this.credentials.watch(principal, (reason) => relayed.credentialEnded(reason));
    stream.pipe(relayed);
    // Express's router leaves its continuation for the request on it (`req.next`, whose closures hold the
    // router's state for this request); nothing calls it once the route has handed the stream off.
    (res.req as { next?: unknown }).next = undefined;
    // A client that hung up while the stream was opening fired 'close' already: free its place now.
    if (res.destroyed) {
      void stream.close();
    }
  }

  /** A stream is over (its terminal event, its client, its deadline, its credential, a failure): cleans up. */
  async finished(relayed: RelayedStream, error?: unknown): Promise<void> {
    const { sse, stream, ended } = relayed;
    sseOpenStreams.dec();
    this.heartbeats.delete(sse);
    this.deadlines.delete(stream);
    relayed.unwatch();
    await stream.close();
    if (ended) {
      // A comment, not an event: event ids are JetStream sequences, and this is none. The client
      // resumes with Last-Event-ID and a fresh credential.
      sse.comment(`end ${ended}`);
    }
    sse.end();
    if (error !== undefined) {
      this.streamFailed(sse.res.req, sse.res, error);
    }
  }

  streamFailed(req: Request, res: Response, error: unknown): void {
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

/** One open stream as the controller relays it: what it pushes is written to the client as SSE. */
class RelayedStream implements StreamSink {
  ended: CredentialEndReason | undefined;
  unwatch: () => void = () => undefined;
  private over = false;
  /** The stream's request context (made in the route): events are pushed later, from the firehose's turn. */
  private readonly opened = context.active();

  constructor(
    readonly sse: SseWriter,
    readonly stream: RunEventStream,
    private readonly controller: RunEventsController,
  ) {}

  item(item: StreamItem): void | Promise<void> {
    if (this.sse.closed || this.ended) {
      this.end();
      return;
    }
    if (item.kind === 'reset') {
      const sent = this.sse.event(item.id, 'reset', item.json);
      return sent ? sent.then(countReset) : countReset();
    }
    const { event } = item;
    return deliverObserved(event, () => this.sse.frame(sseFrameOf(event)), this.opened);
  }

  end(error?: unknown): void {
    if (this.over) {
      return;
    }
    this.over = true;
    const { res } = this.sse;
    void this.controller.finished(this, error).catch((failure: unknown) => this.controller.streamFailed(res.req, res, failure));
  }

  credentialEnded(reason: CredentialEndReason): void {
    this.ended = reason;
    void this.stream.close();
  }
}

function countReset(): void {
  sseEventsSent.inc({ type: 'reset' });
}
