import type { Figure } from './figure';
import { describeTarget, verdictOf } from './target';

/** results.md's table: each figure, its same-run baseline and ratio, its target and the bench's verdict. */
export function resultsTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => {
    const baseline = f.baseline ? `${f.baseline.value} (${f.baseline.what})` : '';
    const target = f.target ? describeTarget(f.target, f.unit) : '';
    const verdict = f.target ? verdictOf(f.target, f) : '';
    return `| ${f.scenario} | ${f.metric} | ${f.value} ${f.unit} | ${baseline} | ${f.ratio ?? ''} | ${target} | ${verdict} |`;
  });
  return ['| scenario | metric | value | baseline | ratio | target | verdict |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** One line per target: how many were met, and each one missed. */
export function verdictSummary(figures: readonly Figure[]): string {
  const judged = figures.filter((f) => f.target !== undefined);
  const missed = judged.filter((f) => verdictOf(f.target!, f) === 'missed');
  const lines = missed.map(
    (f) =>
      `- missed: ${f.scenario}, ${f.metric}: ${f.value} ${f.unit}${f.ratio !== undefined ? ` (ratio ${f.ratio})` : ''}, target ${describeTarget(f.target!, f.unit)}`,
  );
  return [`Targets met: ${judged.length - missed.length} of ${judged.length}.`, ...lines].join('\n');
}
