import { hasTimedOut, timeoutOf, type RunView } from '@wrs/domain';
import type { Snapshot } from '@wrs/messaging';
import type { Observation, RunProvider } from '../providers/provider';
import { isoNow, snapshotOf, stillDispatched, type StepContext } from './step-context';
import { submitPlaced } from './submit';
import { tenantSafe } from './tenant-safe';

/** Moves a `starting` or `running` run to where its provider says the workload is, recording its log lines. */
export async function observe(context: StepContext, run: RunView): Promise<void> {
  const provider = run.placement && context.providers.get(run.placement.provider);
  if (!provider) {
    // Thrown, not failed at once: the workload may still run there, and another worker may have the
    // provider. Past the unresponsive bound the run fails provider_error, saying this.
    throw new Error(
      `the run's provider ${run.placement?.provider ?? '(none)'} is not available to this worker; its workload may still be running`,
    );
  }
  const observation = await observed(context, provider, run);
  if ((observation.phase === 'pending' || observation.phase === 'running') && observation.changesAtMs !== undefined) {
    context.lookAgainAt(run, observation.changesAtMs);
  }
  // Past its limit only while the provider still has it running: one that exited meanwhile (a worker
  // that was down or busy looks late) is recorded as it ended, not killed after the fact.
  if (observation.phase === 'running' && hasTimedOut(run, context.nowMs())) {
    await provider.cancel(run);
    await provider.release?.(run);
    await fail(context, run, 'timed_out', `the workload ran longer than ${timeoutOf(run.workload)} s`);
    return;
  }
  switch (observation.phase) {
    case 'pending':
      // Starting and not running yet: submitted again (idempotent), as a worker that died between
      // creating a workload and starting it left it created but never started. Not if this process's
      // own submit of this dispatch was taken: nobody died, and the re-submit read the run's events
      // (an ordered consumer), opened its credential (Postgres) and read its last version, per run.
      if (run.state === 'starting' && !context.submitted.has(run)) {
        await submitAgain(context, run);
      }
      return;
    // Each step decides on the state the previous one left (not on the row again, which the first
    // append made stale: deciding on it would conflict and read the run's events back).
    case 'running': {
      const started = await context.execute(run, { type: 'MarkRunStarted', now: isoNow(context) });
      await recordLogs(context, run, provider, started);
      return;
    }
    case 'exited': {
      const started = await context.execute(run, { type: 'MarkRunStarted', now: isoNow(context) });
      // Every line the workload wrote is recorded before its end.
      const logged = await recordLogs(context, run, provider, started);
      await context.execute(run, { type: 'CompleteRun', exitCode: observation.exitCode, now: isoNow(context) }, logged);
      await provider.release?.(run);
      return;
    }
    case 'failed': {
      const logged = await recordLogs(context, run, provider, snapshotOf(run));
      await context.execute(
        run,
        { type: 'FailRun', failure: { code: observation.code, message: tenantSafe(observation.reason) }, now: isoNow(context) },
        logged,
      );
      await provider.release?.(run);
      return;
    }
    case 'lost':
      return onLost(context, run, observation.reason);
  }
}

/**
 * A `starting` run whose workload the provider does not have was recorded as dispatched but not (or not
 * surely) submitted: the worker died in between, or the submit's answer was lost. It is submitted
 * again while the provider has had less than the unresponsive bound to take it. A `running` run whose
 * workload is gone cannot finish by itself.
 */
async function onLost(context: StepContext, run: RunView, reason: string): Promise<void> {
  const dispatchedMs = run.dispatchedAt ? Date.parse(run.dispatchedAt) : 0;
  if (run.state === 'starting' && context.nowMs() - dispatchedMs < context.unresponsiveAfterMs) {
    await submitAgain(context, run);
    return;
  }
  await fail(context, run, 'provider_lost', reason);
}

/** Submits again only if the run's events still say this dispatch: a row read before a cancel or an end must not start anything. */
async function submitAgain(context: StepContext, run: RunView): Promise<void> {
  const now = await context.current(run);
  if (stillDispatched(now, run) && now.state?.state === 'starting') {
    await submitPlaced(context, now);
  }
}

async function observed(context: StepContext, provider: RunProvider, run: RunView): Promise<Observation> {
  try {
    const seen = await provider.observe(run);
    context.providers.health.recordSuccess(provider.name, run.workspaceId);
    return seen;
  } catch (error) {
    context.providers.health.recordFailure(provider.name, run.workspaceId, error);
    throw error;
  }
}

async function recordLogs(context: StepContext, run: RunView, provider: RunProvider, at: Snapshot): Promise<Snapshot> {
  const fromIndex = at.state?.logLines ?? run.logLines;
  const lines = await provider.logs(run, fromIndex);
  if (lines.length === 0) {
    return at;
  }
  return context.execute(run, { type: 'RecordLogs', fromIndex, lines, now: isoNow(context) }, at, `rec-${run.runId}-logs-${fromIndex}`);
}

async function fail(context: StepContext, run: RunView, code: 'provider_lost' | 'timed_out', message: string): Promise<void> {
  await context.execute(run, { type: 'FailRun', failure: { code, message: tenantSafe(message) }, now: isoNow(context) });
}
