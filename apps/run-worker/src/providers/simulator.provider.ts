import type { RunView } from '@wrs/domain';
import type { Observation, RunProvider } from './provider';

export const SIMULATOR_DEFAULTS = { startDelayMs: 20, durationMs: 100, exitCode: 0 } as const;

/**
 * A SIMULATOR, not a compute provider: it runs nothing. Its outcome is a pure function of the run's
 * dispatch time and three variables in the workload's env (SIM_START_DELAY_MS, SIM_DURATION_MS,
 * SIM_EXIT_CODE), so it is deterministic, survives a worker restart, and lets tests and demos choose
 * success, failure and duration per run.
 */
export class SimulatorProvider implements RunProvider {
  readonly name = 'simulator';

  constructor(private readonly clock: () => number = Date.now) {}

  submit(): Promise<void> {
    // Nothing to start: observe() derives the phase from the dispatch time.
    return Promise.resolve();
  }

  observe(run: RunView): Promise<Observation> {
    return Promise.resolve(this.phaseOf(run));
  }

  cancel(): Promise<void> {
    // Nothing runs, so nothing to stop.
    return Promise.resolve();
  }

  private phaseOf(run: RunView): Observation {
    if (!run.dispatchedAt) {
      return { phase: 'pending' };
    }
    const env = run.workload.env ?? {};
    const startDelayMs = numberOr(env['SIM_START_DELAY_MS'], SIMULATOR_DEFAULTS.startDelayMs);
    const durationMs = numberOr(env['SIM_DURATION_MS'], SIMULATOR_DEFAULTS.durationMs);
    const elapsed = this.clock() - Date.parse(run.dispatchedAt);
    if (elapsed < startDelayMs) {
      return { phase: 'pending' };
    }
    if (elapsed < startDelayMs + durationMs) {
      return { phase: 'running' };
    }
    return { phase: 'exited', exitCode: numberOr(env['SIM_EXIT_CODE'], SIMULATOR_DEFAULTS.exitCode) };
  }
}

function numberOr(value: string | undefined, fallback: number): number {
  const parsed = value === undefined ? NaN : Number(value);
  return Number.isInteger(parsed) && parsed >= 0 ? parsed : fallback;
}
