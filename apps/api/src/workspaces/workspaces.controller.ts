import { Controller, Get, Req } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import { Workspaces, type WorkspaceRecord } from '@wrs/persistence';
import { ProblemError } from '@wrs/problem';
import type { Request } from 'express';

@Controller('workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: Workspaces) {}

  @Get('current')
  async current(@Req() req: Request): Promise<WorkspaceRecord> {
    const workspace = await this.workspaces.find(authOf(req).workspaceId);
    if (!workspace) {
      throw new ProblemError('workspace_not_found');
    }
    return workspace;
  }
}
