import type { Placement, RunView } from '@wrs/domain';

export interface LogLine {
  readonly stream: 'stdout' | 'stderr';
  readonly line: string;
}

/** A provider's typed refusal: the run fails with this code (and `auto` may try the next candidate). */
export class ProviderError extends Error {
  constructor(
    readonly code:
      | 'image_not_found'
      | 'provider_error'
      | 'provider_credential_missing'
      | 'no_capacity'
      | 'registry_auth_failed'
      | 'image_pull_timed_out',
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** A workload a provider holds, found by its run label: what the cleanup of stray workloads looks at. */
export interface HeldWorkload {
  readonly runId: string;
  /** The workspace its labels name, or null when they do not say. */
  readonly workspaceId: string | null;
  /** When the provider created it, in ms since the epoch. */
  readonly createdAtMs: number;
  /** Where the provider finds it again to remove it (provider-specific). */
  readonly handle: string;
}

/**
 * Whether the run still wants the workload this submit made started (no: it was canceled or moved on).
 * Asked after the workload is made, so a cancel recorded after the answer finds the workload and removes it.
 */
export type StillWanted = () => Promise<boolean>;

/** For a submit whose caller has nothing to ask (a test, a tool): always yes. */
export const ALWAYS_WANTED: StillWanted = () => Promise.resolve(true);

export type Observation =
  | { readonly phase: 'pending'; readonly changesAtMs?: number }
  /** `changesAtMs`: when the provider knows the workload will next change (a simulated end), so the reconciler looks again then. */
  | { readonly phase: 'running'; readonly changesAtMs?: number }
  | { readonly phase: 'exited'; readonly exitCode: number }
  /** The provider ended the workload itself without an exit code of its own (its deadline, a missing image). */
  | { readonly phase: 'failed'; readonly code: 'image_not_found' | 'timed_out' | 'provider_error'; readonly reason: string }
  /** The provider no longer knows the workload: it cannot finish by itself. */
  | { readonly phase: 'lost'; readonly reason: string };

/**
 * What the worker needs of a place that runs workloads. Every call is idempotent by run id, so a
 * worker that dies after submitting and is redelivered the same work re-attaches instead of starting
 * a second workload.
 */
export interface RunProvider {
  readonly name: string;
  /**
   * Whether submit is handed the workspace's stored key: it is read and decrypted only for a provider
   * that uses one (a key opened for nothing would still be a plaintext in memory, and a read per run).
   */
  readonly takesCredential: boolean;
  /**
   * `credential` is the workspace's stored key for this provider and region, opened for this call only
   * (null: none). `stillWanted` is asked after the workload exists and before it may start: a provider
   * that can hold a workload unstarted starts it only on yes, so a run canceled meanwhile never runs.
   */
  submit(run: RunView, placement: Placement, credential: string | null, stillWanted?: StillWanted): Promise<void>;
  observe(run: RunView): Promise<Observation>;
  /** Log lines from `fromIndex` on (numbered from 0 over stdout and stderr together). */
  logs(run: RunView, fromIndex: number): Promise<LogLine[]>;
  /**
   * Stops and removes the run's workload (one never started or already gone is not an error). The
   * reconciler then observes: a cancel counts as done only once the provider reports the workload lost.
   */
  cancel(run: RunView): Promise<void>;
  /**
   * Checks the provider's one global endpoint (e.g. the container engine); throws when it is not
   * usable. Absent for providers without one (a Kubernetes cluster differs per workspace).
   */
  probe?(): Promise<void>;
  /** Frees what the run held once it is over (a container, a Job); optional. */
  release?(run: RunView): Promise<void>;
  /**
   * Every workload of this installation the provider holds (by its run and owner labels), whatever
   * its run's state: level-triggered cleanup compares them with the runs. Absent: nothing to clean.
   */
  listHeld?(): Promise<HeldWorkload[]>;
  /** Stops and removes one listed workload; one already gone is not an error. */
  removeHeld?(workload: HeldWorkload): Promise<void>;
  /**
   * Calls `changed(runId)` whenever the provider learns, unasked, that a run's workload may have changed
   * (it started, exited or was removed, or wrote log lines), so the reconciler observes that run at once
   * instead of at its next scheduled look (which backs off while nothing changes). Returns a stop
   * function. Absent: the reconciler relies on its schedule alone.
   */
  watch?(changed: (runId: string) => void): () => void;
}
