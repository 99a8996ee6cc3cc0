import { decidePlacement, placementCandidates, type CandidateFacts, type PlacementCandidate, type RunView } from '@wrs/domain';
import type { Snapshot } from '@wrs/messaging';
import { isoNow, snapshotOf, type StepContext } from './step-context';
import { submitPlaced } from './submit';
import { tenantSafe } from './tenant-safe';

/**
 * Places a queued run by the `auto` policy (libs/domain's decidePlacement), records the placement as
 * `run.dispatched`, and only then submits. A candidate that refuses for certain is recorded and the
 * next one is tried, until one takes the run, or none can now (the run waits, saying why), or none
 * ever will (the run fails, saying why).
 */
export async function dispatch(context: StepContext, run: RunView): Promise<void> {
  let at: Snapshot | null = snapshotOf(run);
  while (at?.state?.state === 'queued') {
    const state = at.state;
    // A reservation of this run's from a drive whose append failed (or may have) is not counted against
    // it: the run is queued, so it is placed again here. Kept until then: the append may have happened.
    context.reservations.release(run.runId);
    // Read again each pass (cached briefly): a newer query meanwhile has dropped the reservations it counted.
    const loads = await context.loads();
    // From the counts to the reservation without an await: a concurrent dispatch sees this one's place taken.
    const loadOf = (p: string, r: string): number =>
      (loads.counts.get(`${p}/${r}`) ?? 0) + context.reservations.extra(`${p}/${r}`, loads.queriedAtMs);
    const candidates = placementCandidates(context.offers, run.requested.provider, run.requested.region, loadOf);
    const decision = decidePlacement(state.requested, candidates, state.refusals ?? [], (c) => factsOf(context, c, run.workspaceId));
    if (decision.kind === 'place') {
      context.reservations.reserve(run.runId, `${decision.placement.provider}/${decision.placement.region}`);
    }
    if (decision.kind === 'fail') {
      await context.execute(run, { type: 'FailRun', failure: decision.failure, now: isoNow(context) }, at);
      return;
    }
    if (decision.kind === 'wait') {
      // Decides an event only when the reason changed; the next sweep or poke tries again.
      await context.execute(
        run,
        { type: 'WaitRun', reason: decision.reason, message: decision.message, now: isoNow(context) },
        at,
        `rec-${run.runId}-wait-${decision.reason}`,
      );
      return;
    }
    const dispatched = await context.execute(
      run,
      { type: 'DispatchRun', placement: decision.placement, now: isoNow(context) },
      at,
      `rec-${run.runId}-dispatch-${state.refusals?.length ?? 0}`,
    );
    // Only the writer of run.dispatched submits: another decision that came first (a cancel, another
    // replica's placement, even the same one) owns what follows.
    if (!dispatched.appended) {
      context.reservations.release(run.runId);
      return;
    }
    at = await submitPlaced(context, dispatched);
    if (at !== null) {
      context.reservations.release(run.runId); // refused: queued again, or failed
    }
  }
}

function factsOf(context: StepContext, candidate: PlacementCandidate, workspaceId: string): CandidateFacts {
  const capacity = context.offers.find((o) => o.provider === candidate.provider)?.capacity;
  const health = context.providers.health.verdict(candidate.provider, workspaceId);
  return {
    available: context.providers.get(candidate.provider) !== undefined,
    ...(capacity !== undefined ? { capacity } : {}),
    unhealthy: health.healthy ? null : tenantSafe(health.reason),
  };
}
