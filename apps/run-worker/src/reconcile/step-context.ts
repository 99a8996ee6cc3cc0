import type { ProviderOffer, RunCommand, RunView } from '@wrs/domain';
import type { Snapshot } from '@wrs/messaging';
import type { CredentialVault } from '../credential-vault';
import type { ProviderRegistry } from '../providers/provider-registry';

/** What each step of driving a run needs: the providers, the run's store, the time. */
export interface StepContext {
  readonly providers: ProviderRegistry;
  readonly offers: readonly ProviderOffer[];
  readonly vault: CredentialVault;
  /** The unfinished runs placed on each `provider/region` now. */
  loads(): Promise<Map<string, number>>;
  /**
   * How long a provider may leave a run without an answer: a dispatch it never took, or a cancel it
   * never confirmed, fails the run after this long.
   */
  readonly unresponsiveAfterMs: number;
  /** Decides the command on `at` (the run's row by default) and appends; returns the run's state after. */
  execute(run: RunView, command: RunCommand, at?: Snapshot, messageIdBase?: string): Promise<Snapshot>;
  nowMs(): number;
  /** Fault injection for crash tests (see FAILPOINT); a no-op unless armed. */
  failpoint(name: string): void;
}

export function snapshotOf(run: RunView): Snapshot {
  return { state: run, version: run.version };
}

export function isoNow(context: StepContext): string {
  return new Date(context.nowMs()).toISOString();
}
