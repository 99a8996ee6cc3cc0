import type { RunView } from '@wrs/domain';
import type { LogLine, Observation, RunProvider } from './provider';

export const SIMULATOR_DEFAULTS = { startDelayMs: 20, durationMs: 100, exitCode: 0, logLines: 0 } as const;

/**
 * A SIMULATOR, not a compute provider: it runs nothing. Its outcome is a pure function of the run's
 * dispatch time and variables in the workload's env (SIM_START_DELAY_MS, SIM_DURATION_MS, SIM_EXIT_CODE,
 * SIM_LOG_LINES: lines spread evenly over the run), so it is deterministic, survives a worker restart,
 * and lets tests and demos choose success, failure, duration and output per run.
 */
export class SimulatorProvider implements RunProvider {
  readonly takesCredential = false;

  constructor(
    readonly name = 'simulator',
    private readonly clock: () => number = Date.now,
  ) {}

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

  logs(run: RunView, fromIndex: number): Promise<LogLine[]> {
    const { startDelayMs, durationMs, lines } = this.settingsOf(run);
    if (!run.dispatchedAt || lines === 0) {
      return Promise.resolve([]);
    }
    const elapsed = this.clock() - Date.parse(run.dispatchedAt) - startDelayMs;
    const due = Math.min(lines, Math.floor((Math.max(0, elapsed) * (lines + 1)) / Math.max(1, durationMs)));
    const out: LogLine[] = [];
    for (let i = fromIndex; i < due; i++) {
      out.push({ stream: i % 10 === 9 ? 'stderr' : 'stdout', line: `simulated output line ${i + 1} of ${lines}` });
    }
    return Promise.resolve(out);
  }

  private settingsOf(run: RunView): { startDelayMs: number; durationMs: number; exitCode: number; lines: number } {
    const env = run.workload.env ?? {};
    return {
      startDelayMs: numberOr(env['SIM_START_DELAY_MS'], SIMULATOR_DEFAULTS.startDelayMs),
      durationMs: numberOr(env['SIM_DURATION_MS'], SIMULATOR_DEFAULTS.durationMs),
      exitCode: numberOr(env['SIM_EXIT_CODE'], SIMULATOR_DEFAULTS.exitCode),
      lines: numberOr(env['SIM_LOG_LINES'], SIMULATOR_DEFAULTS.logLines),
    };
  }

  private phaseOf(run: RunView): Observation {
    // Nothing runs, so once a cancel has stopped "it" there is nothing left: the cancel is confirmed.
    if (run.state === 'canceling') {
      return { phase: 'lost', reason: 'the simulator runs nothing; the canceled run is gone' };
    }
    if (!run.dispatchedAt) {
      return { phase: 'pending' };
    }
    const { startDelayMs, durationMs, exitCode, lines } = this.settingsOf(run);
    const dispatchedMs = Date.parse(run.dispatchedAt);
    const elapsed = this.clock() - dispatchedMs;
    if (elapsed < startDelayMs) {
      return { phase: 'pending', changesAtMs: dispatchedMs + startDelayMs };
    }
    if (elapsed < startDelayMs + durationMs) {
      return { phase: 'running', changesAtMs: dispatchedMs + startDelayMs + nextChangeMs(elapsed - startDelayMs, durationMs, lines) };
    }
    return { phase: 'exited', exitCode };
  }
}

/** Since the start, when the next line is due (lines spread evenly, as logs() has them) or the run ends. */
function nextChangeMs(sinceStartMs: number, durationMs: number, lines: number): number {
  if (lines === 0) {
    return durationMs;
  }
  const dueLines = Math.floor((sinceStartMs * (lines + 1)) / Math.max(1, durationMs));
  return Math.min(durationMs, Math.ceil(((dueLines + 1) * durationMs) / (lines + 1)));
}

function numberOr(value: string | undefined, fallback: number): number {
  const parsed = value === undefined ? NaN : Number(value);
  return Number.isInteger(parsed) && parsed >= 0 ? parsed : fallback;
}
