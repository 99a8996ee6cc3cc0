import { Controller, Get, Inject, Req } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import { EffectiveLimits, type WorkspaceLimits } from '@wrs/limits';
import { Workspaces, type WorkspaceRecord } from '@wrs/persistence';
import { ProblemError } from '@wrs/problem';
import type { Request } from 'express';

export const SERVICE_LIMITS = Symbol('SERVICE_LIMITS');

@Controller('workspaces')
export class WorkspacesController {
  constructor(
    private readonly workspaces: Workspaces,
    private readonly limits: EffectiveLimits,
    @Inject(SERVICE_LIMITS) private readonly serviceLimits: Record<string, number>,
  ) {}

  /** The token's workspace, with every limit in force for it. */
  @Get('current')
  async current(@Req() req: Request): Promise<WorkspaceRecord & { limits: WorkspaceLimits & Record<string, number> }> {
    const { workspaceId } = authOf(req);
    const workspace = await this.workspaces.find(workspaceId);
    if (!workspace) {
      throw new ProblemError('workspace_not_found');
    }
    return { ...workspace, limits: { ...(await this.limits.for(workspaceId)), ...this.serviceLimits } };
  }
}
