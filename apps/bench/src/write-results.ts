import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { latencyChart } from './chart';
import { resultsTable, verdictSummary } from './results-table';
import type { Figure } from './scenarios';
import { statementsTable, type StatementBreakdown } from './pg-statements';
import { round } from './stats';
import { verdictOf } from './target';

/**
 * Writes results.json, results.md and latency.svg into `out`, and returns the table with its verdicts;
 * with `statements`, Postgres's per-statement breakdown too.
 */
export function writeResults(
  out: string,
  figures: Figure[],
  seconds: number,
  loadAtStart: number[],
  servers: string,
  statements?: StatementBreakdown,
): string {
  mkdirSync(out, { recursive: true });
  // The load average says how quiet the box was: figures from a busy one are noise.
  const machine = {
    node: process.version,
    cpus: cpus().length,
    at: new Date().toISOString(),
    loadAverage: { atStart: loadAtStart, atEnd: loadavg().map((l) => round(l)) },
    servers,
  };
  const judged = figures.map((f) => (f.target ? { ...f, verdict: verdictOf(f.target, f) } : f));
  writeFileSync(
    join(out, 'results.json'),
    JSON.stringify({ machine, seconds, figures: judged, ...(statements ? { postgresStatements: statements } : {}) }, null, 2),
  );
  const table = `${resultsTable(figures)}\n\n${verdictSummary(figures)}${statements ? `\n\n${statementsTable(statements)}` : ''}`;
  writeFileSync(
    join(out, 'latency.svg'),
    latencyChart(figures, `Latency percentiles, Node ${machine.node}, ${machine.cpus} cores, ${machine.at}`),
  );
  writeFileSync(
    join(out, 'results.md'),
    `# Benchmark results\n\nNode ${machine.node}, ${machine.cpus} cores, ${machine.at}, load average ${machine.loadAverage.atStart.join(' ')} at the start and ${machine.loadAverage.atEnd.join(' ')} at the end, ${seconds} s per scenario; ${machine.servers}.\n\n${table}\n\n![latency percentiles](latency.svg)\n`,
  );
  return table;
}
