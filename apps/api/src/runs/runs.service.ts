import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { checkRequestedPlacement, evolve, toRunView, type ProviderOffer, type RunView } from '@wrs/domain';
import { RunCommandBus, type CreateRunCommandMessage } from '@wrs/messaging';
import { RunQueries } from '@wrs/persistence';
import { ProblemError } from '@wrs/problem';
import type { CreateRunDto } from './create-run.dto';
import { fingerprintOf, sha256Hex } from './idempotency-key';

export const PROVIDER_OFFERS = Symbol('PROVIDER_OFFERS');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface CreateRunOutcome {
  readonly run: RunView;
  /** True when this request repeated an earlier one with the same Idempotency-Key. */
  readonly replayed: boolean;
}

@Injectable()
export class RunsService {
  constructor(
    private readonly commands: RunCommandBus,
    private readonly queries: RunQueries,
    @Inject(PROVIDER_OFFERS) private readonly offers: readonly ProviderOffer[],
  ) {}

  async create(
    workspaceId: string,
    idempotencyKey: string,
    body: CreateRunDto,
    requestId: string,
  ): Promise<CreateRunOutcome> {
    const placement = checkRequestedPlacement(this.offers, body.provider, body.region);
    if (!placement.ok) {
      throw new ProblemError(placement.field === 'provider' ? 'unsupported_provider' : 'unsupported_region', {
        params: { [placement.field]: body[placement.field], allowed: placement.allowed },
      });
    }
    const fingerprint = fingerprintOf(body);
    const offered = { runId: randomUUID(), fingerprint, createdAt: new Date().toISOString() };
    const claim = await this.commands.claimIdempotencyKey(workspaceId, sha256Hex(idempotencyKey), offered);
    if (!claim.claimed && claim.existing.fingerprint !== fingerprint) {
      throw new ProblemError('idempotency_conflict');
    }
    const { runId, createdAt } = claim.claimed ? offered : claim.existing;
    const command: CreateRunCommandMessage = {
      type: 'CreateRun',
      runId,
      workspaceId,
      workload: body.workload,
      provider: body.provider,
      region: body.region,
      idempotencyKey,
      now: createdAt,
      requestId,
    };
    // Also on a replay: if the first request died between its claim and this publish, the retry
    // finishes its work (the body is the same, the fingerprint says so).
    await this.commands.publishCreate(command);
    const run = (await this.queries.find(workspaceId, runId)) ?? pendingRun(command);
    return { run, replayed: !claim.claimed };
  }

  /**
   * Read-your-writes: a run whose create command is in JetStream but not yet projected is returned
   * from the command itself, as the worker will record it.
   */
  async get(workspaceId: string, runId: string): Promise<RunView> {
    if (!UUID.test(runId)) {
      throw new ProblemError('run_not_found');
    }
    const projected = await this.queries.find(workspaceId, runId);
    if (projected) {
      return projected;
    }
    const pending = await this.commands.findCreate(workspaceId, runId);
    if (!pending) {
      throw new ProblemError('run_not_found');
    }
    return pendingRun(pending);
  }

  async cancel(workspaceId: string, runId: string, requestedBy: string, requestId: string): Promise<RunView> {
    const run = await this.get(workspaceId, runId);
    await this.commands.publishCancel({
      type: 'CancelRun',
      runId,
      workspaceId,
      requestedBy,
      now: new Date().toISOString(),
      requestId,
    });
    return run;
  }
}

function pendingRun(command: CreateRunCommandMessage): RunView {
  const state = evolve(null, {
    type: 'run.created',
    data: {
      runId: command.runId,
      workspaceId: command.workspaceId,
      workload: command.workload,
      provider: command.provider,
      region: command.region,
      idempotencyKey: command.idempotencyKey,
      at: command.now,
    },
  });
  if (!state) {
    throw new Error('a created event always yields a state');
  }
  return toRunView(state, 0);
}
