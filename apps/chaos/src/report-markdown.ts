import type { Verdict } from './checker';

/** The chaos run's report.md: the faults, a verdict per property, and the counts. */
export function chaosReportMarkdown(
  report: {
    seed: number;
    profile: string;
    seconds: number;
    replay: string;
    settledAfterMs: number;
    faults: { at: number; description: string; tookMs: number; error?: string }[];
    counts: Record<string, unknown>;
    ok: boolean;
  },
  verdicts: readonly Verdict[],
): string {
  const faults = report.faults.map((f) => `| ${f.at.toFixed(1)} s | ${f.description} | ${f.tookMs} ms | ${f.error ?? ''} |`);
  const checks = verdicts.map(
    (v) => `| ${v.ok ? 'PASS' : '**FAIL**'} | ${v.name} | ${v.checked} | ${v.violations.slice(0, 5).join('<br>')} |`,
  );
  return [
    `# Chaos run: ${report.ok ? 'PASS' : 'FAIL'}`,
    '',
    `Seed ${report.seed}, profile ${report.profile}, ${report.seconds} s of faults; settled ${(report.settledAfterMs / 1000).toFixed(1)} s after they stopped.`,
    `Replay: \`${report.replay}\``,
    '',
    '## Faults',
    '',
    '| at | fault | took | error |',
    '|---|---|---|---|',
    ...faults,
    '',
    '## Verdicts',
    '',
    '| verdict | property | checked | first violations |',
    '|---|---|---|---|',
    ...checks,
    '',
    '## Counts',
    '',
    '```json',
    JSON.stringify(report.counts, null, 2),
    '```',
    '',
  ].join('\n');
}
