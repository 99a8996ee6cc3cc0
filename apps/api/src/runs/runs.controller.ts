import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import { idempotentReplays, runsCreated } from '@wrs/observability';
import { requestIdOf } from '@wrs/problem';
import type { Request, Response } from 'express';
import { CreateRunDto } from './create-run.dto';
import { requireIdempotencyKey } from './idempotency-key';
import { toRunResource } from '@wrs/domain';
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
  ) {}

  @Get()
  async list(
    @Req() req: Request,
    @Query() query: Record<string, unknown>,
  ): Promise<{ items: Record<string, unknown>[]; nextCursor: string | null }> {
    const page = await this.runList.list(authOf(req).workspaceId, parseListRunsQuery(query));
    const last = page.lastOfPage;
    return {
      items: page.items.map(toRunResource),
      nextCursor: last ? encodeRunCursor({ createdAt: last.createdAt, id: last.runId }) : null,
    };
  }

  @Post()
  async create(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body() body: CreateRunDto,
  ): Promise<Record<string, unknown>> {
    const key = requireIdempotencyKey(idempotencyKey);
    const { run, replayed } = await this.runs.create(authOf(req).workspaceId, key, body);
    res.status(201).setHeader('Location', `/api/v1/runs/${run.runId}`);
    if (replayed) {
      res.setHeader('Idempotent-Replayed', 'true');
      idempotentReplays.inc();
    } else {
      runsCreated.inc();
    }
    return toRunResource(run);
  }

  @Get(':runId')
  async get(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Param('runId') runId: string,
  ): Promise<Record<string, unknown>> {
    const run = await this.runs.get(authOf(req).workspaceId, runId);
    // The last state change, not the last event: a log line does not make an If-Match stale.
    res.setHeader('ETag', `"${run.stateVersion}"`);
    return toRunResource(run);
  }

  /** `POST /runs/{runId}:cancel`: the colon is literal, escaped for Express 5's path syntax. The body is the run after the cancel. */
  @Post(':runId\\:cancel')
  @HttpCode(202)
  async cancel(
    @Req() req: Request,
    @Param('runId') runId: string,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<Record<string, unknown>> {
    const auth = authOf(req);
    return toRunResource(await this.cancels.cancel(auth.workspaceId, runId, auth.subject, requestIdOf(req), ifMatch));
  }
}
