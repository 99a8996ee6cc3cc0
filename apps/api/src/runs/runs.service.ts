import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Failpoint } from '@wrs/config';
import { checkRequestedPlacement, decide, isUuid, type ProviderOffer, type RunView } from '@wrs/domain';
import { RunCommandBus, RunEventStore, VersionConflictError, type IdempotencyClaim } from '@wrs/messaging';
import { EffectiveLimits } from '@wrs/limits';
import { RunQueries } from '@wrs/persistence';
import { rateLimitRejections } from '@wrs/observability';
import { ProblemError } from '@wrs/problem';
import { ActiveRunsQuota } from './active-runs-quota';
import type { CreateRunDto } from './create-run.dto';
import { IdempotencyCache, type BeginResult } from './idempotency-cache';
import { canonicalize, fingerprintOf, sha256Hex } from './idempotency-key';
import { pendingRun, type CreateRun } from './pending-run';
import { UnprojectedRuns } from './unprojected-runs';

export const PROVIDER_OFFERS = Symbol('PROVIDER_OFFERS');

export interface CreateRunOutcome {
  readonly run: RunView;
  /** True when this request repeated an earlier one with the same Idempotency-Key. */
  readonly replayed: boolean;
}

@Injectable()
export class RunsService {
  private readonly quota: ActiveRunsQuota;

  constructor(
    private readonly commands: RunCommandBus,
    private readonly events: RunEventStore,
    private readonly unprojected: UnprojectedRuns,
    private readonly queries: RunQueries,
    private readonly cache: IdempotencyCache,
    private readonly failpoint: Failpoint,
    limits: EffectiveLimits,
    @Inject(PROVIDER_OFFERS) private readonly offers: readonly ProviderOffer[],
  ) {
    this.quota = new ActiveRunsQuota(limits, queries, cache);
  }

  async create(
    workspaceId: string,
    idempotencyKey: string,
    body: CreateRunDto,
    /** `Cancel-After`, in seconds: part of the request, so part of its fingerprint. */
    cancelAfter?: number,
    /** The begin, when the rate limit's round trip did it (createBeginRider). */
    begunAhead?: BeginResult,
  ): Promise<CreateRunOutcome> {
    const placement = checkRequestedPlacement(this.offers, body.provider, body.region);
    if (!placement.ok) {
      // The route took the lock the rate limit's round trip may have taken for this request: release it, or a corrected retry is told "in flight".
      if (begunAhead && 'lock' in begunAhead && begunAhead.lock === 'acquired') {
        await this.cache.unlock(workspaceId, sha256Hex(idempotencyKey), begunAhead.token);
      }
      throw new ProblemError(placement.field === 'provider' ? 'unsupported_provider' : 'unsupported_region', {
        params: { [placement.field]: body[placement.field], allowed: placement.allowed },
      });
    }
    const canonical = canonicalize(body) as CreateRunDto;
    // Without the header the fingerprint is the body's alone, as before the header existed.
    const fingerprint = cancelAfter === undefined ? fingerprintOf(canonical) : fingerprintOf({ body: canonical, cancelAfter });
    const keyHash = sha256Hex(idempotencyKey);
    // One Redis round trip: the finished claim, else the lock and the workspace's kept count of unfinished runs.
    const begun = begunAhead ?? (await this.cache.begin(workspaceId, keyHash));
    if ('finished' in begun) {
      return this.replay(begun.finished, fingerprint, workspaceId, idempotencyKey, canonical, cancelAfter);
    }
    if (begun.lock === 'held-by-another') {
      throw new ProblemError('idempotency_in_flight', { headers: { 'Retry-After': '1' } });
    }
    // The token this request set the lock to: only it releases the lock, not one taken after it lapsed.
    const lockToken = begun.lock === 'acquired' ? begun.token : undefined;
    let released = false;
    try {
      const quota = await this.quota.check(workspaceId, begun.activeRuns);
      if (quota.exceeded) {
        await this.refuseOverQuota(workspaceId, keyHash, fingerprint, quota);
      }
      const offered = { runId: randomUUID(), fingerprint, createdAt: new Date().toISOString() };
      const claim = await this.commands.claimIdempotencyKey(workspaceId, keyHash, offered);
      const winner = claim.claimed ? offered : claim.existing;
      if (winner.fingerprint !== fingerprint) {
        throw new ProblemError('idempotency_conflict');
      }
      const command = createCommand(winner, workspaceId, idempotencyKey, canonical, cancelAfter);
      // Also on a replay: if the first request died between its claim and this append, the retry
      // finishes its work (the body is the same, the fingerprint says so).
      await this.record(command);
      this.failpoint.hit('api.after-create-append');
      released = await this.cache.finish(workspaceId, keyHash, winner, claim.claimed, lockToken);
      return { run: pendingRun(command), replayed: !claim.claimed };
    } finally {
      if (lockToken !== undefined && !released) {
        await this.cache.unlock(workspaceId, keyHash, lockToken);
      }
    }
  }

  /**
   * Appends the run's first event before answering, so a stream opened on the new run sees it at once
   * with no worker in between. Creating a run that already exists (a retry or replay) does nothing.
   */
  private async record(command: CreateRun): Promise<void> {
    const events = decide(command, null);
    try {
      await this.events.append(command.workspaceId, command.runId, events, 0, 'create');
    } catch (error) {
      if (!(error instanceof VersionConflictError)) {
        throw error;
      }
    }
  }

  /** Over quota, only a retry of a run already accepted goes on; anything else is refused. */
  private async refuseOverQuota(
    workspaceId: string,
    keyHash: string,
    fingerprint: string,
    quota: { limit: number; active: number },
  ): Promise<void> {
    const claim = await this.commands.findClaim(workspaceId, keyHash);
    if (claim?.fingerprint === fingerprint) {
      return;
    }
    rateLimitRejections.inc({ limit: 'active_runs' });
    throw new ProblemError('active_runs_quota_exceeded', {
      headers: { 'Retry-After': '10' },
      params: { limit: quota.limit, active: quota.active },
    });
  }

  /**
   * The answer to a create is a function of the claim and the (canonical) body alone, so a replay is
   * byte-for-byte the first answer, whatever the run has done since.
   */
  private replay(
    claim: IdempotencyClaim,
    fingerprint: string,
    workspaceId: string,
    idempotencyKey: string,
    body: CreateRunDto,
    cancelAfter: number | undefined,
  ): CreateRunOutcome {
    if (claim.fingerprint !== fingerprint) {
      throw new ProblemError('idempotency_conflict');
    }
    return { run: pendingRun(createCommand(claim, workspaceId, idempotencyKey, body, cancelAfter)), replayed: true };
  }

  /** Read-your-writes: a run the projection has not caught up with is read from its events. */
  async get(workspaceId: string, runId: string): Promise<RunView> {
    if (!isUuid(runId)) {
      throw new ProblemError('run_not_found');
    }
    const run = (await this.queries.find(workspaceId, runId)) ?? (await this.unprojected.find(workspaceId, runId));
    if (!run) {
      throw new ProblemError('run_not_found');
    }
    return run;
  }
}

function createCommand(
  claim: IdempotencyClaim,
  workspaceId: string,
  idempotencyKey: string,
  body: CreateRunDto,
  cancelAfter?: number,
): CreateRun {
  return {
    // From the claim's time, so every replay computes the same deadline.
    ...(cancelAfter !== undefined ? { deadline: new Date(Date.parse(claim.createdAt) + cancelAfter * 1000).toISOString() } : {}),
    type: 'CreateRun',
    runId: claim.runId,
    workspaceId,
    workload: body.workload,
    provider: body.provider,
    region: body.region,
    idempotencyKey,
    now: claim.createdAt,
  };
}
