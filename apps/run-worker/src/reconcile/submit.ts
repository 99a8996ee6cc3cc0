import { refusalEndsRun, toRunView, type Failover, type RunView } from '@wrs/domain';
import type { Snapshot } from '@wrs/messaging';
import { observeDispatch } from '../dispatch-observation';
import { ProviderError, type RunProvider } from '../providers/provider';
import { isoNow, stillDispatched, type StepContext } from './step-context';
import { tenantSafe } from './tenant-safe';

/**
 * Hands a dispatched run to the provider its `run.dispatched` event names; returns null once it is taken.
 * A certain refusal is recorded and the state after it returned. An unclear failure is thrown: the run
 * stays `starting`, and observing it later finds the workload or submits again (idempotent by run id).
 */
export async function submitPlaced(context: StepContext, dispatched: Snapshot): Promise<Snapshot | null> {
  const state = dispatched.state;
  const placement = state?.placement;
  if (!state || state.state !== 'starting' || !placement) {
    return dispatched;
  }
  const run: RunView = toRunView(state, dispatched.version);
  const provider = context.providers.get(placement.provider);
  if (!provider) {
    return refuse(context, run, dispatched, {
      provider: placement.provider,
      region: placement.region,
      code: 'provider_error',
      message: 'the provider is not available to this worker',
    });
  }
  // Opened here, outside the try: a failure to read our own store is not the provider's.
  const credential = provider.takesCredential ? await context.vault.open(run.workspaceId, placement.provider, placement.region) : null;
  context.failpoint('worker.before-submit');
  try {
    const beforeStart = () => {
      context.failpoint('worker.before-start');
      return stillWanted(context, run);
    };
    await observeDispatch(placement.provider, () => provider.submit(run, placement, credential, beforeStart));
    context.providers.health.recordSuccess(placement.provider, run.workspaceId);
  } catch (error) {
    if (!(error instanceof ProviderError)) {
      throw error;
    }
    // Only a certain refusal counts against health: after an unclear failure the run must not be
    // moved elsewhere by an `unhealthy` skip.
    if (error.code === 'provider_error') {
      context.providers.health.recordFailure(placement.provider, run.workspaceId, error);
    }
    return refuse(context, run, dispatched, {
      provider: placement.provider,
      region: placement.region,
      code: error.code,
      message: tenantSafe(error.message),
    });
  }
  context.failpoint('worker.after-submit');
  context.submitted.taken(run);
  await stopIfLate(context, run, provider);
  return null;
}

/**
 * Whether the dispatch `run` is still what the run wants: asked by the provider between making the
 * workload and starting it. Usually one direct get says nothing happened since the dispatch.
 */
async function stillWanted(context: StepContext, run: RunView): Promise<boolean> {
  return (await context.lastVersion(run)) === run.version || stillDispatched(await context.current(run), run);
}

/**
 * A submit can end long after it began (an image pull): if the run was canceled or moved on meanwhile,
 * what the submit made is removed at once, not left to the cleanup.
 */
async function stopIfLate(context: StepContext, run: RunView, provider: RunProvider): Promise<void> {
  if (!(await stillWanted(context, run))) {
    await provider.cancel(run);
  }
}

async function refuse(context: StepContext, run: RunView, at: Snapshot, refusal: Failover): Promise<Snapshot> {
  if (refusalEndsRun(refusal.code)) {
    return context.execute(run, { type: 'FailRun', failure: { code: refusal.code, message: refusal.message }, now: isoNow(context) }, at);
  }
  return context.execute(
    run,
    { type: 'RefuseDispatch', refusal, now: isoNow(context) },
    at,
    `rec-${run.runId}-refuse-${refusal.provider}-${refusal.region}`,
  );
}
