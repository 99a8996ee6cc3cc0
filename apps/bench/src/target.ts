/**
 * A figure's target as data, so the bench decides met or missed itself: a bound on the figure's value
 * or on its ratio to the same-run baseline.
 */
export interface Target {
  readonly on: 'value' | 'ratio';
  readonly op: '<' | '<=' | '>=' | '>';
  readonly bound: number;
}

export type Verdict = 'met' | 'missed';

export const atMost = (bound: number, on: Target['on'] = 'value'): Target => ({ on, op: '<=', bound });
export const below = (bound: number, on: Target['on'] = 'value'): Target => ({ on, op: '<', bound });
export const atLeast = (bound: number, on: Target['on'] = 'value'): Target => ({ on, op: '>=', bound });

/** Met or missed; a figure without the number its target bounds (no ratio, NaN) misses. */
export function verdictOf(target: Target, figure: { readonly value: number; readonly ratio?: number | undefined }): Verdict {
  const measured = target.on === 'ratio' ? figure.ratio : figure.value;
  if (measured === undefined || !Number.isFinite(measured)) {
    return 'missed';
  }
  const met = {
    '<': measured < target.bound,
    '<=': measured <= target.bound,
    '>=': measured >= target.bound,
    '>': measured > target.bound,
  }[target.op];
  return met ? 'met' : 'missed';
}

/** How results.md and the chart show a target: `ratio >= 0.15`, `< 100 ms`. */
export function describeTarget(target: Target, unit: string): string {
  const op = { '<': '<', '<=': '≤', '>=': '≥', '>': '>' }[target.op];
  return target.on === 'ratio' ? `ratio ${op} ${target.bound}` : `${op} ${target.bound} ${unit}`;
}
