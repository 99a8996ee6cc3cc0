import { availableParallelism } from 'node:os';
import type { Figure } from './figure';
import { median, round } from './stats';
import { atMost } from './target';

/** The part CpuUsage names after the bench's own process: it drives the load and is not the service's cost. */
export const LOAD_GENERATOR = 'load generator';

/** CPU ms per run by part, from the CPU each part used over `runs` runs. */
export function perRun(used: ReadonlyMap<string, number>, runs: number): Map<string, number> {
  return new Map([...used].map(([part, ms]) => [part, ms / runs]));
}

/** A run's CPU on every part of the box except the load generator. */
export function serviceCpuPerRun(byPart: ReadonlyMap<string, number>): number {
  return [...byPart].filter(([part]) => part !== LOAD_GENERATOR).reduce((sum, [, ms]) => sum + ms, 0);
}

/** Each measurement's total, their median, and the measurement whose total is nearest it. */
function nearestMedian(measurements: readonly ReadonlyMap<string, number>[]): {
  totals: number[];
  middle: number;
  closest: ReadonlyMap<string, number>;
} {
  const totals = measurements.map(serviceCpuPerRun);
  const middle = median(totals);
  const closest =
    measurements[totals.reduce((best, t, i) => (Math.abs(t - middle) < Math.abs((totals[best] ?? NaN) - middle) ? i : best), 0)];
  return { totals, middle, closest: closest ?? new Map<string, number>() };
}

/** A part's figures, largest first. */
const largestFirst = (byPart: ReadonlyMap<string, number>): [string, number][] => [...byPart].sort((a, b) => b[1] - a[1]);

/**
 * The same-run baseline of CPU per run: the essential program's measurements (essential/), and which
 * of its parts is the counterpart of which of ours (ours by name, its own by name).
 */
export interface EssentialBaseline {
  readonly what: string;
  readonly measurements: readonly ReadonlyMap<string, number>[];
  readonly counterparts: ReadonlyMap<string, string>;
}

/**
 * The CPU targets over repeated measurements at one rate: each measurement's CPU per run
 * (load generator excluded), their median (at most 5 ms), Postgres's median (at most 1 ms), and the
 * measurement closest to the median by part, so its breakdown shows where the time goes. Targets only
 * when `judged` (the issue sets them at 100 runs/s). With `essential`, the median's baseline is the
 * essential work's median (the ratio: ours over it; the runs/s two cores carry move to a line of
 * their own), its measurements and breakdown follow, and each part of ours is set against its
 * counterpart (the two breakdowns nearest their medians).
 */
export function cpuPerRunFigures(
  at: string,
  measurements: readonly ReadonlyMap<string, number>[],
  judged = true,
  essential?: EssentialBaseline,
): Figure[] {
  const { totals, middle, closest } = nearestMedian(measurements);
  const postgres = median(measurements.map((m) => m.get('postgres') ?? NaN));
  const breakdown = largestFirst(closest);
  const cores = availableParallelism();
  const carried = (ms: number): number => Math.round((cores * 1000) / ms);
  const base = essential && nearestMedian(essential.measurements);
  return [
    ...totals.map((t, i): Figure => ({
      scenario: 'end-to-end',
      metric: `CPU per run ${at}, measurement ${i + 1} of ${totals.length} (every process but the load generator)`,
      value: round(t),
      unit: 'ms',
    })),
    {
      scenario: 'end-to-end',
      metric: `CPU per run ${at}, median of ${totals.length} (every process but the load generator)`,
      value: round(middle),
      unit: 'ms',
      ...(essential && base
        ? { baseline: { what: essential.what, value: round(base.middle) }, ratio: round(middle / base.middle, 2) }
        : { baseline: { what: `runs/s that ${cores} cores carry at that cost`, value: carried(middle) } }),
      ...(judged ? { target: atMost(5) } : {}),
    },
    ...(base
      ? [
          {
            scenario: 'end-to-end',
            metric: `runs/s that ${cores} cores carry at the median CPU per run ${at}`,
            value: carried(middle),
            unit: 'runs/s',
            baseline: { what: "at the essential work's", value: carried(base.middle) },
          },
        ]
      : []),
    {
      scenario: 'end-to-end',
      metric: `Postgres CPU per run ${at}, median of ${totals.length}`,
      value: round(postgres),
      unit: 'ms',
      ...(judged ? { target: atMost(1) } : {}),
    },
    ...breakdown.map(([part, ms]): Figure => ({
      scenario: 'end-to-end',
      metric: `CPU per run ${at}, the measurement nearest the median: ${part}`,
      value: round(ms),
      unit: 'ms',
    })),
    ...(essential && base ? essentialFigures(at, essential, base, closest) : []),
  ];
}

/** The essential work's own measurements and breakdown, and each part of ours against its counterpart. */
function essentialFigures(
  at: string,
  essential: EssentialBaseline,
  base: ReturnType<typeof nearestMedian>,
  ours: ReadonlyMap<string, number>,
): Figure[] {
  return [
    ...base.totals.map((t, i): Figure => ({
      scenario: 'end-to-end',
      metric: `essential work CPU per run ${at}, measurement ${i + 1} of ${base.totals.length} (its processes and the servers)`,
      value: round(t),
      unit: 'ms',
    })),
    ...largestFirst(base.closest).map(([part, ms]): Figure => ({
      scenario: 'end-to-end',
      metric: `essential work CPU per run ${at}, the measurement nearest its median: ${part}`,
      value: round(ms),
      unit: 'ms',
    })),
    ...[...essential.counterparts].map(([part, counterpart]): Figure => {
      const mine = ours.get(part) ?? 0;
      const theirs = base.closest.get(counterpart) ?? NaN;
      return {
        scenario: 'end-to-end',
        metric: `CPU per run ${at} against the essential work's, by part (both nearest their medians): ${part}`,
        value: round(mine),
        unit: 'ms',
        baseline: { what: counterpart, value: round(theirs) },
        ratio: round(mine / theirs, 2),
      };
    }),
  ];
}
