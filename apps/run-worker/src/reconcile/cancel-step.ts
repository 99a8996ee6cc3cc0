import type { RunView } from '@wrs/domain';
import { isoNow, type StepContext } from './step-context';
import { tenantSafe } from './tenant-safe';

/**
 * Removes a `canceling` run's workload and records `run.canceled` only once the provider says it is gone.
 * A provider that cannot confirm within the unresponsive bound (counted from the cancel request) fails the
 * run `cancel_unconfirmed` rather than report a success it does not know; the workload cleanup goes on trying.
 */
export async function cancel(context: StepContext, run: RunView): Promise<void> {
  if (!run.placement) {
    await confirm(context, run);
    return;
  }
  const provider = context.providers.get(run.placement.provider);
  let unconfirmed: string;
  try {
    if (!provider) {
      throw new Error(`the provider ${run.placement.provider} is not available to this worker`);
    }
    await provider.cancel(run);
    context.failpoint('worker.after-provider-cancel');
    const seen = await provider.observe(run);
    if (seen.phase === 'lost') {
      await confirm(context, run);
      return;
    }
    unconfirmed = `the provider still reports the workload ${seen.phase}`;
  } catch (error) {
    if (!pastBound(context, run)) {
      throw error; // Logged by the reconciler; the next sweep tries again.
    }
    unconfirmed = tenantSafe(error instanceof Error ? error.message : String(error));
  }
  if (!pastBound(context, run)) {
    return; // The next sweep looks again.
  }
  const waitedMs = context.nowMs() - cancelRequestedMs(context, run);
  await context.execute(run, {
    type: 'FailRun',
    failure: {
      code: 'cancel_unconfirmed',
      message: `the provider did not confirm within ${Math.round(waitedMs / 1000)} s that the workload is gone (${unconfirmed}); it may still be running`,
    },
    now: isoNow(context),
  });
}

async function confirm(context: StepContext, run: RunView): Promise<void> {
  await context.execute(run, { type: 'ConfirmRunCanceled', now: isoNow(context) });
}

/** From the cancel request, or from this worker's start if later: a worker back from an outage tries before it gives up. */
function cancelRequestedMs(context: StepContext, run: RunView): number {
  return Math.max(Date.parse(run.cancellation?.requestedAt ?? run.createdAt), context.startedAtMs);
}

function pastBound(context: StepContext, run: RunView): boolean {
  return context.nowMs() - cancelRequestedMs(context, run) >= context.unresponsiveAfterMs;
}
