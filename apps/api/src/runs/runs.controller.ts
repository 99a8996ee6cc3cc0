import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import { RideRateLimit } from '@wrs/limits';
import { idempotentReplays, runsCreated } from '@wrs/observability';
import type { Immutable, RunList, RunResource } from '@wrs/contracts/types';
import type { RunView } from '@wrs/domain';
import { toRunList, toRunResource } from '@wrs/edge';
import { ProblemError, requestIdOf } from '@wrs/problem';
import type { Request, Response } from 'express';
import { CreateRunDto } from './create-run.dto';
import { requireIdempotencyKey } from './idempotency-key';
import { cancelAfterSeconds } from './cancel-after';
import { createBeginRider, takeBegunAhead } from './create-begin-rider';
import { preferredWaitSeconds } from './prefer-wait';
import { RunWaits } from './run-waits';
import { RunsService } from './runs.service';
import { RunCancelService } from './run-cancel.service';
import { parseListRunsQuery } from './list-runs-query';
import { RunListService } from './run-list.service';
import { encodeRunCursor } from './run-cursor';

@Controller('runs')
export class RunsController {
  constructor(
    private readonly runs: RunsService,
    private readonly runList: RunListService,
    private readonly cancels: RunCancelService,
    private readonly waits: RunWaits,
  ) {}

  @Get()
  async list(@Req() req: Request, @Query() query: Record<string, unknown>): Promise<Immutable<RunList>> {
    const page = await this.runList.list(authOf(req).workspaceId, parseListRunsQuery(query));
    const last = page.lastOfPage;
    return toRunList(page.items, last ? encodeRunCursor({ createdAt: last.createdAt, id: last.runId }) : null);
  }

  @Post()
  @RideRateLimit(createBeginRider)
  async create(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Headers('prefer') prefer: string | undefined,
    @Headers('cancel-after') cancelAfter: string | undefined,
    @Body() body: CreateRunDto,
  ): Promise<Immutable<RunResource>> {
    const key = requireIdempotencyKey(idempotencyKey);
    const { run, replayed } = await this.runs.create(
      authOf(req).workspaceId,
      key,
      body,
      cancelAfterSeconds(cancelAfter),
      takeBegunAhead(req, key),
    );
    if (replayed) {
      idempotentReplays.inc();
    } else {
      runsCreated.inc();
    }
    const answered = await this.waitIfPreferred(run, prefer, res);
    res.status(201).setHeader('Location', `/api/v1/runs/${run.runId}`);
    if (replayed) {
      res.setHeader('Idempotent-Replayed', 'true');
    }
    return toRunResource(answered);
  }

  @Get(':runId')
  async get(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Param('runId') runId: string,
    @Headers('prefer') prefer: string | undefined,
  ): Promise<Immutable<RunResource>> {
    const run = await this.waitIfPreferred(await this.runs.get(authOf(req).workspaceId, runId), prefer, res);
    // The last state change, not the last event: a log line does not make an If-Match stale.
    res.setHeader('ETag', `"${run.stateVersion}"`);
    // The ETag names the run's state, not its log count: Express's 304 to a matching If-None-Match
    // would hide log lines printed since, so the read always answers with the run.
    delete req.headers['if-none-match'];
    return toRunResource(run);
  }

  /** With `Prefer: wait=N`, the run once terminal or after N seconds (capped), saying so in `Preference-Applied`. */
  private async waitIfPreferred(run: RunView, prefer: string | undefined, res: Response): Promise<RunView> {
    const seconds = preferredWaitSeconds(prefer);
    if (seconds === null) {
      return run;
    }
    const clientGone = new AbortController();
    res.once('close', () => clientGone.abort());
    // A client that left while the run was being created or read closed the response before the listener.
    if (res.closed || res.destroyed) {
      clientGone.abort();
    }
    const settled = await this.waits.settled(run, seconds, clientGone.signal);
    res.setHeader('Preference-Applied', `wait=${seconds}`);
    return settled;
  }

  /** `POST /runs/{runId}:cancel`: the colon is literal, escaped for Express 5's path syntax. The body is the run after the cancel. */
  @Post(':runId\\:cancel')
  @HttpCode(202)
  async cancel(
    @Req() req: Request,
    @Param('runId') runId: string,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<Immutable<RunResource>> {
    // The contract says no body: one sent means the client expects it to count (a reason, say), and it would not.
    if (hasBody(req)) {
      throw new ProblemError('validation_failed', {
        detail: 'a cancel takes no request body',
        params: { errors: [{ field: 'body', message: 'a cancel takes no request body' }] },
      });
    }
    const auth = authOf(req);
    return toRunResource(await this.cancels.cancel(auth.workspaceId, runId, auth.subject, requestIdOf(req), ifMatch));
  }
}

/** A request with a body: a length above zero, or a chunked one. */
function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}
