import {
  AUTO,
  AUTO_POLICY,
  isTerminalState,
  placementCandidates,
  type FailoverCode,
  type FailureCode,
  type PlacementCandidate,
  type ProviderOffer,
  type RunCommand,
  type RunView,
} from '@wrs/domain';
import type { RunQueries } from '@wrs/persistence';
import type { CredentialVault } from './credential-vault';
import { observeDispatch } from './dispatch-observation';
import { ProviderError, type RunProvider } from './providers/provider';
import { timeoutOf } from './providers/run-timeout';
import type { ProviderRegistry } from './providers/provider-registry';
import type { RunCommandHandler, Snapshot } from '@wrs/messaging';

export interface ReconcilerOptions {
  readonly intervalMs: number;
  /** A provider that has not answered for this long about a run fails it (never `running` forever). */
  readonly unresponsiveAfterMs: number;
  readonly batchSize: number;
  readonly onError: (error: unknown, run: RunView) => void;
}

/**
 * Level-triggered: looks at every run that is not terminal and moves it one step towards where its
 * provider says it is. Nothing is remembered in memory that a restart would lose: after a kill -9 the
 * next sweep picks every run up again. Several replicas may drive the same run; the decider and the
 * event store's optimistic concurrency make that harmless.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private readonly inHand = new Set<string>();
  /** Since when each run's provider has been failing to answer (in memory: a restart starts over). */
  private readonly failingSince = new Map<string, number>();
  private sweeping: Promise<void> | undefined;
  /**
   * The newest version of each unfinished run this worker has appended or been shown: a row older
   * than it (a sweep's row read before a poke moved the run on) is skipped, since deciding on it could
   * only conflict; the newer row is on its way (the projection pokes with it, the next sweep reads
   * it). In memory only: after a restart every row is taken at its word again.
   */
  private readonly newest = new Map<string, number>();

  constructor(
    private readonly queries: RunQueries,
    private readonly handler: RunCommandHandler,
    private readonly providers: ProviderRegistry,
    private readonly offers: readonly ProviderOffer[],
    private readonly vault: CredentialVault,
    private readonly options: ReconcilerOptions,
    private readonly clock: () => Date = () => new Date(),
    /** Fault injection for crash tests (see FAILPOINT); a no-op unless armed. */
    private readonly failpoint: (name: string) => void = () => undefined,
  ) {}

  /**
   * The load per placement, one query for every dispatch that asks while it is in flight: a sweep
   * dispatches hundreds of runs at once, and each asking on its own made the count (a scan of every
   * unfinished run) the worker's largest database cost. A dispatch never sees a count older than the
   * query in flight when it asked.
   */
  private loadsInFlight: Promise<Map<string, number>> | undefined;

  private loads(): Promise<Map<string, number>> {
    this.loadsInFlight ??= this.queries.placedCounts().finally(() => (this.loadsInFlight = undefined));
    return this.loadsInFlight;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** Drive one run now (after its projection changed) instead of waiting for the next sweep. */
  poke(run: RunView): void {
    this.saw(run.runId, run.version, run.terminal);
    if (!run.terminal) {
      void this.driveOnce(run);
    }
  }

  async sweep(): Promise<void> {
    const runs = await this.queries.active(this.options.batchSize).catch(() => []);
    await Promise.all(runs.map((run) => this.driveOnce(run)));
  }

  private saw(runId: string, version: number, terminal: boolean): void {
    if (terminal) {
      this.newest.delete(runId);
      return;
    }
    if (this.newest.size >= MAX_REMEMBERED_RUNS) {
      this.newest.clear();
    }
    this.newest.set(runId, Math.max(version, this.newest.get(runId) ?? 0));
  }

  private async driveOnce(run: RunView): Promise<void> {
    if (this.inHand.has(run.runId) || run.version < (this.newest.get(run.runId) ?? 0)) {
      return;
    }
    this.inHand.add(run.runId);
    try {
      await this.drive(run);
      this.failingSince.delete(run.runId);
    } catch (error) {
      this.options.onError(error, run);
      await this.failIfUnresponsive(run, error).catch((e: unknown) => this.options.onError(e, run));
    } finally {
      this.inHand.delete(run.runId);
    }
  }

  private async failIfUnresponsive(run: RunView, error: unknown): Promise<void> {
    const since = this.failingSince.get(run.runId) ?? this.clock().getTime();
    this.failingSince.set(run.runId, since);
    const silentMs = this.clock().getTime() - since;
    if (silentMs < this.options.unresponsiveAfterMs || (run.state !== 'queued' && run.state !== 'starting' && run.state !== 'running')) {
      return;
    }
    this.failingSince.delete(run.runId);
    await this.execute(run, {
      type: 'FailRun',
      failure: {
        code: run.state === 'queued' ? 'provider_error' : 'provider_lost',
        message: `the provider has not answered for ${Math.round(silentMs / 1000)} s (${error instanceof Error ? error.message : String(error)})`,
      },
      now: this.now(),
    });
  }

  private async drive(run: RunView): Promise<void> {
    switch (run.state) {
      case 'queued':
        return this.dispatch(run);
      case 'starting':
      case 'running':
        return this.observe(run);
      case 'canceling':
        return this.cancel(run);
      case 'succeeded':
      case 'failed':
      case 'canceled':
        return;
    }
  }

  /**
   * Places the run by the `auto` policy (priority, then cost, then load, then configured order) and
   * fails over: a candidate that is full, unhealthy (for `auto` only: a provider asked for by name is
   * tried anyway) or whose provider refuses is skipped, and the placement records each skip and why.
   */
  private async dispatch(run: RunView): Promise<void> {
    const candidates = await this.rankedCandidates(run);
    const failovers: Failover[] = [];
    for (const candidate of candidates) {
      const provider = this.providers.get(candidate.provider);
      const capacity = this.offers.find((o) => o.provider === candidate.provider)?.capacity;
      if (!provider) {
        failovers.push({ provider: candidate.provider, region: candidate.region, code: 'provider_error', message: 'the provider is not available to this worker' });
        continue;
      }
      if (capacity !== undefined && (candidate.load ?? 0) >= capacity) {
        failovers.push({ provider: candidate.provider, region: candidate.region, code: 'no_capacity', message: `all ${capacity} places are in use` });
        continue;
      }
      const health = this.providers.health.verdict(candidate.provider, run.workspaceId);
      if (!health.healthy && run.requested.provider === AUTO) {
        failovers.push({ provider: candidate.provider, region: candidate.region, code: 'unhealthy', message: `skipped: ${health.reason}` });
        continue;
      }
      const placement = {
        provider: candidate.provider,
        region: candidate.region,
        reason: placementReason(run, candidates.length, failovers.length),
        candidates,
        ...(failovers.length > 0 ? { failovers: [...failovers] } : {}),
      };
      // Opened outside the try: a failure to read our own store is not the provider's.
      const credential = await this.vault.open(run.workspaceId, candidate.provider, candidate.region);
      try {
        await observeDispatch(candidate.provider, () => provider.submit(run, placement, credential));
        this.providers.health.recordSuccess(candidate.provider, run.workspaceId);
      } catch (error) {
        // Only a certain refusal counts against health here: after an unclear failure (the provider may
        // have started the workload) the run must not be moved elsewhere by an `unhealthy` skip.
        if (error instanceof ProviderError && error.code === 'provider_error') {
          this.providers.health.recordFailure(candidate.provider, run.workspaceId, error);
        }
        if (!(error instanceof ProviderError)) {
          throw error;
        }
        if (error.code === 'image_not_found') {
          await this.execute(run, { type: 'FailRun', failure: { code: error.code, message: error.message }, now: this.now() });
          return;
        }
        failovers.push({ provider: candidate.provider, region: candidate.region, code: error.code, message: error.message });
        continue;
      }
      this.failpoint('worker.after-submit');
      await this.execute(run, { type: 'DispatchRun', placement, now: this.now() });
      return;
    }
    const tried = failovers.map((f) => `${f.provider}/${f.region}: ${f.code}: ${f.message}`).join('; ');
    await this.execute(run, {
      type: 'FailRun',
      failure: {
        code: finalFailureCode(failovers),
        message: tried ? `no candidate could take the run (${tried})` : 'no configured provider offers the requested placement',
      },
      now: this.now(),
    });
  }

  /** The candidates in policy order, each with its load: the unfinished runs placed there now. */
  private async rankedCandidates(run: RunView): Promise<PlacementCandidate[]> {
    const loads = await this.loads();
    return placementCandidates(this.offers, run.requested.provider, run.requested.region, (p, r) => loads.get(`${p}/${r}`) ?? 0);
  }

  private async observe(run: RunView): Promise<void> {
    const provider = run.placement && this.providers.get(run.placement.provider);
    if (!provider) {
      await this.execute(run, {
        type: 'FailRun',
        failure: { code: 'provider_error', message: 'the run\'s provider is no longer configured' },
        now: this.now(),
      });
      return;
    }
    if (this.timedOut(run)) {
      await provider.cancel(run);
      await provider.release?.(run);
      await this.execute(run, {
        type: 'FailRun',
        failure: { code: 'timed_out', message: `the workload ran longer than ${timeoutOf(run)} s` },
        now: this.now(),
      });
      return;
    }
    const observation = await provider.observe(run).then(
      (seen) => {
        this.providers.health.recordSuccess(provider.name, run.workspaceId);
        return seen;
      },
      (error: unknown) => {
        this.providers.health.recordFailure(provider.name, run.workspaceId, error);
        throw error;
      },
    );
    switch (observation.phase) {
      case 'pending':
        return;
      // Each step decides on the state the previous one left (not on the row again, which the first
      // append made stale: deciding on it would conflict and read the run's events back).
      case 'running': {
        const started = await this.execute(run, { type: 'MarkRunStarted', now: this.now() });
        await this.recordLogs(run, provider, started);
        return;
      }
      case 'exited': {
        const started = await this.execute(run, { type: 'MarkRunStarted', now: this.now() });
        // Every line the workload wrote is recorded before its end.
        const logged = await this.recordLogs(run, provider, started);
        await this.execute(run, { type: 'CompleteRun', exitCode: observation.exitCode, now: this.now() }, logged);
        await provider.release?.(run);
        return;
      }
      case 'failed': {
        const logged = await this.recordLogs(run, provider, snapshotOf(run));
        await this.execute(run, { type: 'FailRun', failure: { code: observation.code, message: observation.reason }, now: this.now() }, logged);
        await provider.release?.(run);
        return;
      }
      case 'lost':
        await this.execute(run, {
          type: 'FailRun',
          failure: { code: 'provider_lost', message: observation.reason },
          now: this.now(),
        });
        return;
    }
  }

  private timedOut(run: RunView): boolean {
    return run.state === 'running' && run.startedAt !== null && this.clock().getTime() - Date.parse(run.startedAt) > timeoutOf(run) * 1000;
  }

  private async recordLogs(run: RunView, provider: RunProvider, at: Snapshot): Promise<Snapshot> {
    const fromIndex = at.state?.logLines ?? run.logLines;
    const lines = await provider.logs(run, fromIndex);
    if (lines.length === 0) {
      return at;
    }
    return this.execute(run, { type: 'RecordLogs', fromIndex, lines, now: this.now() }, at, `rec-${run.runId}-logs-${fromIndex}`);
  }

  private async cancel(run: RunView): Promise<void> {
    const provider = run.placement && this.providers.get(run.placement.provider);
    await provider?.cancel(run);
    await this.execute(run, { type: 'ConfirmRunCanceled', now: this.now() });
    await provider?.release?.(run);
  }

  /** Returns the run's state after the decision: what the next step of the same drive decides on. */
  private async execute(
    run: RunView,
    command: RunCommand,
    at: Snapshot = snapshotOf(run),
    messageIdBase = `rec-${run.runId}-${command.type}`,
  ): Promise<Snapshot> {
    // Decided on the projected state first (no event-store read); a stale projection makes the append
    // conflict and the handler decides again on the events themselves.
    const handled = await this.handler.execute(run.workspaceId, run.runId, command, messageIdBase, at);
    this.saw(run.runId, handled.version, handled.state !== null && isTerminalState(handled.state.state));
    return { state: handled.state, version: handled.version };
  }

  private now(): string {
    return this.clock().toISOString();
  }
}

/** Bounds the memory of newest versions (cleared when full: forgetting only costs a conflict). */
const MAX_REMEMBERED_RUNS = 100_000;

function snapshotOf(run: RunView): Snapshot {
  return { state: run, version: run.version };
}

interface Failover {
  readonly provider: string;
  readonly region: string;
  readonly code: FailoverCode;
  readonly message: string;
}

/**
 * Why a run no candidate could take failed: when every candidate failed for the same reason, that
 * reason (a missing credential or a refusing provider tells the user what to fix; a provider skipped
 * as unhealthy is a provider error); else no capacity.
 */
function finalFailureCode(failovers: readonly Failover[]): FailureCode {
  const codes = new Set(failovers.map((f) => f.code));
  const [only] = codes;
  if (codes.size !== 1 || only === undefined) {
    return 'no_capacity';
  }
  return only === 'unhealthy' ? 'provider_error' : only;
}

function placementReason(run: RunView, candidates: number, skipped: number): string {
  const policy =
    run.requested.provider === 'auto' || run.requested.region === 'auto'
      ? `auto: ${candidates} candidate(s) by ${AUTO_POLICY}`
      : 'as requested';
  return skipped > 0 ? `${policy}; ${skipped} candidate(s) before this one could not take the run` : policy;
}
