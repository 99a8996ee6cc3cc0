import type { ProviderOffer, RunCommand, RunView } from '@wrs/domain';
import type { Snapshot } from '@wrs/messaging';
import type { CredentialVault } from '../credential-vault';
import type { ProviderRegistry } from '../providers/provider-registry';
import type { PlacementReservations } from './placement-reservations';

/** What each step of driving a run needs: the providers, the run's store, the time. */
export interface StepContext {
  readonly providers: ProviderRegistry;
  readonly offers: readonly ProviderOffer[];
  readonly vault: CredentialVault;
  /** The unfinished runs placed on each `provider/region`, as Postgres counted them, and when that query began. */
  loads(): Promise<PlaceLoads>;
  /** Placements decided here that those counts may not include yet. */
  readonly reservations: PlacementReservations;
  /**
   * How long a provider may leave a run without an answer: a dispatch it never took, or a cancel it
   * never confirmed, fails the run after this long.
   */
  readonly unresponsiveAfterMs: number;
  /** When this worker started: a bound counted from a time before it is counted from here instead. */
  readonly startedAtMs: number;
  /** Decides the command on `at` (the run's row by default) and appends; returns the run's state after. */
  execute(run: RunView, command: RunCommand, at?: Snapshot, messageIdBase?: string): Promise<Decided>;
  /** The run as its events say now (not the projection): for a step about to act on a provider again. */
  current(run: RunView): Promise<Snapshot>;
  /** The run's last event sequence (cheaper than `current`: one direct get). */
  lastVersion(run: RunView): Promise<number>;
  /** Dispatches this process's own submit was taken for (by run id, the dispatch's time). */
  readonly submitted: SubmittedHere;
  nowMs(): number;
  /** The provider says when the run's workload next changes: the reconciler looks again by then. */
  lookAgainAt(run: RunView, atMs: number): void;
  /** Fault injection for crash tests (see FAILPOINT); a no-op unless armed. */
  failpoint(name: string): void;
}

/**
 * The dispatches whose submit this process made and the provider took. A workload the provider then
 * reports pending is not submitted again by the same process: the re-submit is for a worker that died
 * between recording the dispatch and submitting (or between creating and starting), which a process that
 * saw its own submit succeed did not. Lost on restart, so a restarted worker submits again as before.
 */
export class SubmittedHere {
  private readonly byRun = new Map<string, string>();

  taken(run: RunView): void {
    if (!run.dispatchedAt) {
      return;
    }
    if (this.byRun.size >= MAX_SUBMITTED_REMEMBERED) {
      this.byRun.clear(); // forgetting only costs a re-submit (idempotent)
    }
    this.byRun.set(run.runId, run.dispatchedAt);
  }

  /** Whether this process's submit of the dispatch `run` shows was taken. */
  has(run: RunView): boolean {
    return run.dispatchedAt !== null && this.byRun.get(run.runId) === run.dispatchedAt;
  }

  forget(runId: string): void {
    this.byRun.delete(runId);
  }
}

const MAX_SUBMITTED_REMEMBERED = 100_000;

export interface PlaceLoads {
  readonly counts: ReadonlyMap<string, number>;
  readonly queriedAtMs: number;
}

/** The state after a command, and whether this call appended its events (not another writer). */
export interface Decided extends Snapshot {
  readonly appended: boolean;
}

/**
 * Whether the run, as `now` shows it, is still the dispatch `run` was: starting or running, at the same
 * placement, from the same dispatch. A workload acted on for an older view must not outlive that.
 */
export function stillDispatched(now: Snapshot, run: RunView): boolean {
  const state = now.state;
  return (
    (state?.state === 'starting' || state?.state === 'running') &&
    state.dispatchedAt === run.dispatchedAt &&
    state.placement?.provider === run.placement?.provider &&
    state.placement?.region === run.placement?.region
  );
}

export function snapshotOf(run: RunView): Snapshot {
  return { state: run, version: run.version };
}

export function isoNow(context: StepContext): string {
  return new Date(context.nowMs()).toISOString();
}
