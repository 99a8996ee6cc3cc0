import { Controller, Get, Inject, Req } from '@nestjs/common';
import { authOf } from '@wrs/auth';
import type { Immutable, Workspace } from '@wrs/contracts/types';
import type { ProviderOffer } from '@wrs/domain';
import { EffectiveLimits, type ServiceLimits } from '@wrs/limits';
import { Workspaces } from '@wrs/persistence';
import { ProblemError } from '@wrs/problem';
import type { Request } from 'express';
import { PROVIDER_OFFERS } from '../runs/runs.service';
import { toWorkspace, toWorkspaceLimits } from './workspace-resource';

export const SERVICE_LIMITS = Symbol('SERVICE_LIMITS');

@Controller('workspaces')
export class WorkspacesController {
  constructor(
    private readonly workspaces: Workspaces,
    private readonly limits: EffectiveLimits,
    @Inject(SERVICE_LIMITS) private readonly serviceLimits: ServiceLimits,
    @Inject(PROVIDER_OFFERS) private readonly offers: readonly ProviderOffer[],
  ) {}

  /**
   * The token's workspace, with every limit in force for it and the placements a run may request
   * (so a form can offer choices instead of free text; priority and cost stay the operator's business).
   */
  @Get('current')
  async current(@Req() req: Request): Promise<Immutable<Workspace>> {
    const { workspaceId } = authOf(req);
    const workspace = await this.workspaces.find(workspaceId);
    if (!workspace) {
      throw new ProblemError('workspace_not_found');
    }
    return toWorkspace(workspace, toWorkspaceLimits(await this.limits.for(workspaceId), this.serviceLimits), this.offers);
  }
}
