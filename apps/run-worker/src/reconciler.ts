import { isTerminalState, pastDeadline, type ProviderOffer, type RunCommand, type RunView } from '@wrs/domain';
import type { RunCommandHandler, Snapshot } from '@wrs/messaging';
import type { ActiveRunsBound, RunQueries } from '@wrs/persistence';
import type { CredentialVault } from './credential-vault';
import type { ProviderRegistry } from './providers/provider-registry';
import { cancel } from './reconcile/cancel-step';
import { dispatch } from './reconcile/dispatch-step';
import { ObserveSchedule } from './reconcile/observe-schedule';
import { observe } from './reconcile/observe-step';
import { PlaceLoadReader, PlacementReservations } from './reconcile/placement-reservations';
import { snapshotOf, SubmittedHere, type Decided, type StepContext } from './reconcile/step-context';
import { Unresponsive } from './reconcile/unresponsive';

export interface ReconcilerOptions {
  readonly intervalMs: number;
  /** The longest a starting or running run goes unobserved while nothing changes (its provider unasked says nothing). */
  readonly maxObserveIntervalMs: number;
  /** A provider that has not answered for this long about a run fails it (never `running` forever). */
  readonly unresponsiveAfterMs: number;
  readonly batchSize: number;
  readonly onError: (error: unknown, run: RunView) => void;
  /** A sweep could not read the runs (Postgres): nothing is lost, the next sweep reads them again. */
  readonly onReadError?: (error: unknown) => void;
}

/**
 * Moves every unfinished run one step towards what its provider reports, so a restarted worker loses
 * nothing. Each sweep reads the next page of unfinished runs (walking them all, page by page), the runs
 * its ObserveSchedule has due and the runs a provider said changed, and drives those due: queued and
 * canceling runs always, a starting or running one as the schedule says. Replicas may drive the same run: the event store's optimistic
 * concurrency makes that harmless.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private readonly inHand = new Set<string>();
  /** Drives in flight, so that stop() lets them finish. */
  private readonly drives = new Set<Promise<void>>();
  private sweeping: Promise<void> | undefined;
  /**
   * The newest version this worker has seen of each unfinished run. An older row is skipped, since deciding
   * on it could only conflict, and the newer one is on its way. Losing this on restart costs nothing.
   */
  private readonly newest = new Map<string, number>();
  private readonly schedule: ObserveSchedule;
  /** Runs a provider said changed since the last sweep: read by id and driven on the next one. */
  private readonly woken = new Set<string>();
  /** Where the walk of unfinished runs goes on (null: from the first). */
  private walkFrom: ActiveRunsBound | null = null;
  private readonly unwatch: (() => void)[] = [];

  constructor(
    private readonly queries: RunQueries,
    private readonly handler: RunCommandHandler,
    providers: ProviderRegistry,
    offers: readonly ProviderOffer[],
    vault: CredentialVault,
    private readonly options: ReconcilerOptions,
    private readonly clock: () => Date = () => new Date(),
    /** Fault injection for crash tests (see FAILPOINT); a no-op unless armed. */
    failpoint: (name: string) => void = () => undefined,
  ) {
    this.unresponsive = new Unresponsive(options.unresponsiveAfterMs);
    this.schedule = new ObserveSchedule(options.intervalMs, Math.max(options.intervalMs, options.maxObserveIntervalMs));
    this.providers = providers;
    this.placeLoads = new PlaceLoadReader(queries, this.reservations, () => this.clock().getTime());
    this.context = {
      providers,
      offers,
      vault,
      loads: () => this.placeLoads.read(),
      reservations: this.reservations,
      unresponsiveAfterMs: options.unresponsiveAfterMs,
      execute: (run, command, at, messageIdBase) => this.execute(run, command, at, messageIdBase),
      current: (run) => this.handler.current(run.workspaceId, run.runId),
      lastVersion: (run) => this.handler.lastVersion(run.workspaceId, run.runId),
      submitted: this.submitted,
      startedAtMs: this.clock().getTime(),
      nowMs: () => this.clock().getTime(),
      lookAgainAt: (run, atMs) => this.schedule.lookAt(run.runId, atMs),
      failpoint,
    };
  }

  /** What the steps (dispatch, observe, cancel) are given. */
  private readonly context: StepContext;
  private readonly unresponsive: Unresponsive;
  private readonly reservations = new PlacementReservations();
  private readonly submitted = new SubmittedHere();
  private readonly placeLoads: PlaceLoadReader;
  private readonly providers: ProviderRegistry;

  start(): void {
    for (const provider of this.providers.all()) {
      const stop = provider.watch?.((runId) => this.wake(runId));
      if (stop) {
        this.unwatch.push(stop);
      }
    }
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unwatch.splice(0).forEach((stop) => stop());
    await this.sweeping;
    await Promise.allSettled([...this.drives]);
  }

  /** A provider said the run's workload changed: it is read and driven on the next sweep, whatever its schedule. */
  wake(runId: string): void {
    if (this.woken.size < MAX_WOKEN_PER_SWEEP) {
      this.woken.add(runId);
    }
    this.schedule.wake(runId);
  }

  /** Drive one run now (after its projection changed) instead of waiting for the next sweep. */
  poke(run: RunView): void {
    this.saw(run.runId, run.version, run.terminal);
    if (run.placement) {
      this.reservations.projected(run.runId, this.clock().getTime());
    }
    if (run.terminal) {
      return;
    }
    if (this.inHand.has(run.runId)) {
      // The drive under way may have read the run before this change: read and driven again next sweep.
      this.wake(run.runId);
      return;
    }
    this.schedule.wake(run.runId);
    void this.driveOnce(run);
  }

  /**
   * Drives every unfinished run. A slow drive (an image pull may take minutes) keeps its own run in
   * hand, not the sweep: after one interval the next sweep goes on with the others and skips it.
   */
  async sweep(): Promise<void> {
    const runs = await this.dueRuns();
    let timer: NodeJS.Timeout | undefined;
    const interval = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.intervalMs)));
    await Promise.race([Promise.all(runs.map((run) => this.driveOnce(run))), interval]);
    clearTimeout(timer);
  }

  /**
   * The runs to drive this sweep, read whole: the woken ones, the ones the schedule has due by now
   * (wherever the walk is: a pass over many runs takes many sweeps), and those due of the walk's next
   * page, which finds the runs this worker does not know. A run whose row is newer than any version this
   * worker saw changed elsewhere (another replica): due at once. One asked for and no longer unfinished
   * is forgotten. A failed read is tried again on the next sweep.
   */
  private async dueRuns(): Promise<RunView[]> {
    const page = await this.queries.activePage(this.walkFrom, this.options.batchSize).catch((error: unknown) => {
      this.options.onReadError?.(error);
      return null;
    });
    if (page) {
      this.walkFrom = page.next;
    }
    const nowMs = this.clock().getTime();
    const ids = new Set(this.woken);
    this.woken.clear();
    for (const runId of this.schedule.dueBy(nowMs, this.options.batchSize, (id) => this.inHand.has(id))) {
      ids.add(runId);
    }
    for (const run of page?.runs ?? []) {
      if (run.version > (this.newest.get(run.runId) ?? 0)) {
        this.schedule.wake(run.runId);
      }
      if (this.schedule.due(run, nowMs)) {
        ids.add(run.runId);
      }
    }
    const asked = [...ids].filter((runId) => !this.inHand.has(runId));
    if (asked.length === 0) {
      return [];
    }
    try {
      const runs = await this.queries.unfinished(asked);
      const found = new Set(runs.map((run) => run.runId));
      asked.filter((runId) => !found.has(runId)).forEach((runId) => this.schedule.forget(runId));
      return runs;
    } catch (error) {
      this.options.onReadError?.(error);
      asked.forEach((runId) => this.wake(runId));
      return [];
    }
  }

  private saw(runId: string, version: number, terminal: boolean): void {
    if (terminal) {
      this.schedule.forget(runId);
      // Remembered as done: a row read before the end (a sweep's) must not be driven again.
      this.newest.set(runId, Number.MAX_SAFE_INTEGER);
      this.reservations.release(runId);
      this.unresponsive.answered(runId);
      this.submitted.forget(runId);
      return;
    }
    if (this.newest.size >= MAX_REMEMBERED_RUNS) {
      this.newest.clear();
    }
    this.newest.set(runId, Math.max(version, this.newest.get(runId) ?? 0));
  }

  private driveOnce(run: RunView): Promise<void> {
    if (this.inHand.has(run.runId) || run.version < (this.newest.get(run.runId) ?? 0)) {
      return Promise.resolve();
    }
    const drive = this.driveHeld(run).finally(() => this.drives.delete(drive));
    this.drives.add(drive);
    return drive;
  }

  private async driveHeld(run: RunView): Promise<void> {
    this.inHand.add(run.runId);
    this.schedule.looking(run.runId);
    try {
      await this.drive(run);
      this.unresponsive.answered(run.runId);
    } catch (error) {
      this.options.onError(error, run);
      await this.failIfUnresponsive(run, error).catch((e: unknown) => this.options.onError(e, run));
    } finally {
      this.inHand.delete(run.runId);
      this.scheduleNext(run);
    }
  }

  /** A look that moved the run (a newer version seen) keeps the next one close; one that did not backs off. */
  private scheduleNext(run: RunView): void {
    const newest = this.newest.get(run.runId) ?? 0;
    if (newest === Number.MAX_SAFE_INTEGER) {
      return; // finished: saw() forgot it
    }
    // The version read counts as seen, so the walk does not take the same row for a change elsewhere.
    this.saw(run.runId, run.version, false);
    this.schedule.looked(run, newest > run.version, this.clock().getTime());
  }

  private async failIfUnresponsive(run: RunView, error: unknown): Promise<void> {
    const failure = this.unresponsive.failed(run, error, this.clock().getTime());
    if (failure) {
      await this.execute(run, { type: 'FailRun', failure, now: this.clock().toISOString() });
    }
  }

  private async drive(run: RunView): Promise<void> {
    if (pastDeadline(run, this.clock().getTime())) {
      // Queued: canceled at once, never started. Started: canceling, then the cancel step stops it.
      await this.execute(run, { type: 'CancelRun', requestedBy: 'system', reason: 'deadline_exceeded', now: this.clock().toISOString() });
      return;
    }
    switch (run.state) {
      case 'queued':
        return dispatch(this.context, run);
      case 'starting':
      case 'running':
        return observe(this.context, run);
      case 'canceling':
        return cancel(this.context, run);
      case 'succeeded':
      case 'failed':
      case 'canceled':
        return;
    }
  }

  /** Returns the run's state after the decision: what the next step of the same drive decides on. */
  private async execute(
    run: RunView,
    command: RunCommand,
    at: Snapshot = snapshotOf(run),
    messageIdBase = `rec-${run.runId}-${command.type}`,
  ): Promise<Decided> {
    // Decided on the projected state first (no event-store read); a stale projection makes the append
    // conflict and the handler decides again on the events themselves.
    const handled = await this.handler.execute(run.workspaceId, run.runId, command, messageIdBase, at);
    this.saw(run.runId, handled.version, handled.state !== null && isTerminalState(handled.state.state));
    return { state: handled.state, version: handled.version, appended: handled.appended.length > 0 };
  }
}

/** Bounds the memory of newest versions (cleared when full: forgetting only costs a conflict). */
const MAX_REMEMBERED_RUNS = 100_000;

/** Bounds the runs read by id per sweep; a wake past it is still due at once, found by the walk. */
const MAX_WOKEN_PER_SWEEP = 1_000;
