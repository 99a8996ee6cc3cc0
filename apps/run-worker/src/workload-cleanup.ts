import type { HeldWorkload, RunProvider } from './providers/provider';
import { verdictOf, type RemovalReason } from './stray-workloads';

/** What the cleanup needs to know of runs: the projection first, the event store for the unprojected. */
export interface RunFates {
  /** Of these run ids, those projected, each with whether it is terminal. */
  terminality(runIds: readonly string[]): Promise<ReadonlyMap<string, boolean>>;
  /** Whether the event store holds any event of the run (its projection may be behind). */
  recorded(workspaceId: string, runId: string): Promise<boolean>;
}

export interface WorkloadCleanupOptions {
  readonly intervalMs: number;
  /** A workload of a run not projected is left alone for this long after its creation. */
  readonly graceMs: number;
  /** At most this many removals per provider per pass: a pass stays bounded after an outage. */
  readonly maxRemovalsPerPass: number;
  readonly onRemoved: (provider: string, workload: HeldWorkload, reason: RemovalReason) => void;
  readonly onError: (provider: string, error: unknown) => void;
}

/** The fates of runs from the worker's projection and event store. */
export function runFates(
  queries: { terminality(runIds: readonly string[]): Promise<ReadonlyMap<string, boolean>> },
  events: { version(workspaceId: string, runId: string): Promise<number> },
): RunFates {
  return {
    terminality: (runIds) => queries.terminality(runIds),
    recorded: async (workspaceId, runId) => (await events.version(workspaceId, runId)) > 0,
  };
}

/** Ids per projection query. */
const QUERY_CHUNK = 500;

/**
 * Every interval, removes the workloads whose run is finished or unknown, from each provider's list of
 * what it holds for this installation. Cancels racing submits and crashed workers leave such workloads;
 * checking what is there, rather than remembering, means a restart loses nothing.
 */
export class WorkloadCleanup {
  private timer: NodeJS.Timeout | undefined;
  private passing: Promise<unknown> | undefined;
  /** Set by stop(): a pass under way removes nothing more, so a worker's shutdown does not wait out a slow engine. */
  private stopping = false;

  constructor(
    private readonly providers: readonly RunProvider[],
    private readonly fates: RunFates,
    private readonly options: WorkloadCleanupOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.passing ??= this.pass().finally(() => (this.passing = undefined));
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.passing;
  }

  /** One pass over every provider; returns what it removed. Never throws: errors go to onError. */
  async pass(): Promise<{ provider: string; workload: HeldWorkload; reason: RemovalReason }[]> {
    const removed: { provider: string; workload: HeldWorkload; reason: RemovalReason }[] = [];
    for (const provider of this.providers) {
      try {
        for (const [workload, reason] of await this.strays(provider)) {
          if (this.stopping) {
            return removed;
          }
          try {
            await provider.removeHeld?.(workload);
            removed.push({ provider: provider.name, workload, reason });
            this.options.onRemoved(provider.name, workload, reason);
          } catch (error) {
            this.options.onError(provider.name, error);
          }
        }
      } catch (error) {
        this.options.onError(provider.name, error);
      }
    }
    return removed;
  }

  private async strays(provider: RunProvider): Promise<[HeldWorkload, RemovalReason][]> {
    if (!provider.listHeld || !provider.removeHeld) {
      return [];
    }
    const held = await provider.listHeld();
    const terminal = new Map<string, boolean>();
    const ids = [...new Set(held.map((w) => w.runId))];
    for (let i = 0; i < ids.length; i += QUERY_CHUNK) {
      (await this.fates.terminality(ids.slice(i, i + QUERY_CHUNK))).forEach((t, id) => terminal.set(id, t));
    }
    const strays: [HeldWorkload, RemovalReason][] = [];
    for (const workload of held) {
      if (strays.length >= this.options.maxRemovalsPerPass) {
        break;
      }
      const verdict = verdictOf(workload, terminal.get(workload.runId), this.clock(), this.options.graceMs);
      if (verdict.kind === 'remove') {
        strays.push([workload, verdict.reason]);
      } else if (verdict.kind === 'ask-events' && !(await this.fates.recorded(workload.workspaceId ?? '', workload.runId))) {
        strays.push([workload, 'orphan']);
      }
    }
    return strays;
  }
}
