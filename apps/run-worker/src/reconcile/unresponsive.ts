import type { Failure, RunView } from '@wrs/domain';
import { tenantSafe } from './tenant-safe';

/**
 * Since when each run's provider has been failing to answer (in memory: a restart starts over), and
 * the failure a run gets once that lasts too long: never `running` forever on a silent provider.
 */
export class Unresponsive {
  private readonly failingSince = new Map<string, number>();

  constructor(private readonly afterMs: number) {}

  answered(runId: string): void {
    this.failingSince.delete(runId);
  }

  /** Notes a failed drive; returns the failure to record once the provider has been silent too long. */
  failed(run: RunView, error: unknown, nowMs: number): Failure | null {
    const since = this.failingSince.get(run.runId) ?? nowMs;
    this.failingSince.set(run.runId, since);
    const silentMs = nowMs - since;
    if (silentMs < this.afterMs || (run.state !== 'queued' && run.state !== 'starting' && run.state !== 'running')) {
      return null;
    }
    this.failingSince.delete(run.runId);
    return {
      // A run its provider never showed running failed for the provider's error; a running one lost its workload.
      code: run.state === 'running' ? 'provider_lost' : 'provider_error',
      message: tenantSafe(
        `the provider has not answered for ${Math.round(silentMs / 1000)} s (${error instanceof Error ? error.message : String(error)})`,
      ),
    };
  }
}
