import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import { isTerminalEventType } from '@wrs/domain';
import { RunEventFeed } from '@wrs/messaging';
import { ProblemError } from '@wrs/problem';
import type { Request, Response } from 'express';
import { parseLastEventId } from './last-event-id';
import { SseWriter } from './sse-writer';

export const RELAY_OPTIONS = Symbol('RELAY_OPTIONS');

export interface RelayOptions {
  readonly heartbeatMs: number;
  readonly retryMs: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

@Controller('runs')
export class RunEventsController {
  constructor(
    private readonly feed: RunEventFeed,
    @Inject(RELAY_OPTIONS) private readonly options: RelayOptions,
  ) {}

  @Get(':runId/events')
  async stream(
    @Req() req: Request,
    @Res() res: Response,
    @Param('runId') runId: string,
    @Query('lastEventId') lastEventIdQuery: unknown,
  ): Promise<void> {
    const { workspaceId } = authOf(req);
    const after = parseLastEventId(req.header('last-event-id'), lastEventIdQuery);
    if (!UUID.test(runId)) {
      throw new ProblemError('run_not_found');
    }
    // The subject carries the caller's workspace, so another workspace's run is simply not found.
    const last = await this.feed.last(workspaceId, runId);
    if (!last && !(await this.feed.accepted(workspaceId, runId))) {
      throw new ProblemError('run_not_found');
    }
    if (last && isTerminalEventType(last.envelope.type) && last.seq <= after) {
      // The client already has the terminal event: 204 tells an EventSource to stop reconnecting.
      res.status(204).end();
      return;
    }
    await this.pipe(res, workspaceId, runId, after);
  }

  private async pipe(res: Response, workspaceId: string, runId: string, after: number): Promise<void> {
    const subscription = await this.feed.follow(workspaceId, runId, after);
    const sse = new SseWriter(res);
    sse.open(this.options.retryMs);
    const heartbeat = setInterval(() => sse.heartbeat(), this.options.heartbeatMs);
    res.on('close', () => void subscription.close());
    try {
      for await (const event of subscription) {
        if (res.destroyed) {
          break;
        }
        await sse.event(event.seq, event.envelope.type, event.json);
        if (isTerminalEventType(event.envelope.type)) {
          break;
        }
      }
    } finally {
      clearInterval(heartbeat);
      await subscription.close();
      sse.end();
    }
  }
}
