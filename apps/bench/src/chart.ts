import type { Figure } from './figure';
import { describeTarget } from './target';

const WIDTH = 900;
const ROW = 26;
const LABEL = 430;
const MARGIN = 40;

/**
 * An SVG bar chart of the latency percentiles (every figure in ms named p50 or p99), on a log scale
 * since they span from a fraction of a millisecond to seconds; each bar carries its value and target.
 */
export function latencyChart(figures: readonly Figure[], title: string): string {
  const bars = figures.filter((f) => f.unit === 'ms' && /p50|p99/.test(f.metric) && f.value > 0);
  const max = Math.max(10, ...bars.map((b) => b.value));
  const min = 0.1;
  const scale = (v: number): number =>
    ((Math.log10(Math.max(v, min)) - Math.log10(min)) / (Math.log10(max) - Math.log10(min))) * (WIDTH - LABEL - MARGIN * 2);
  const height = MARGIN * 2 + bars.length * ROW + 30;
  const ticks = [0.1, 1, 10, 100, 1000, 10000].filter((t) => t <= max);
  const rows = bars.map((b, i) => {
    const y = MARGIN + 20 + i * ROW;
    const w = Math.max(1, scale(b.value));
    const colour = b.metric.includes('p99') ? '#c0504d' : '#4f81bd';
    return [
      `<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end" font-size="12">${escape(`${b.scenario}: ${b.metric}`)}</text>`,
      `<rect x="${LABEL}" y="${y + 3}" width="${w.toFixed(1)}" height="${ROW - 8}" fill="${colour}"/>`,
      `<text x="${LABEL + w + 6}" y="${y + 15}" font-size="12">${b.value} ms${b.target ? ` (target ${escape(describeTarget(b.target, b.unit))})` : ''}</text>`,
    ].join('');
  });
  const grid = ticks.map((t) => {
    const x = LABEL + scale(t);
    return `<line x1="${x}" y1="${MARGIN + 15}" x2="${x}" y2="${height - MARGIN}" stroke="#ddd"/><text x="${x}" y="${height - MARGIN + 14}" font-size="11" text-anchor="middle">${t} ms</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${MARGIN}" y="${MARGIN - 10}" font-size="15" font-weight="bold">${escape(title)}</text>`,
    ...grid,
    ...rows,
    `</svg>`,
  ].join('\n');
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
