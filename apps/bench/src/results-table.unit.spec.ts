import { resultsTable, verdictSummary } from './results-table';
import type { Figure } from './figure';
import { atLeast, below } from './target';

const figures: Figure[] = [
  {
    scenario: 'read',
    metric: 'GET throughput',
    value: 900,
    unit: 'req/s',
    baseline: { what: 'raw pg', value: 9000 },
    ratio: 0.1,
    target: atLeast(0.4, 'ratio'),
  },
  { scenario: 'projection', metric: 'lag p99', value: 24, unit: 'ms', target: below(50) },
  { scenario: 'floor', metric: 'no-op GET', value: 4000, unit: 'req/s' },
];

describe('results.md: the table and its verdicts', () => {
  it('writes a verdict beside each figure with a target and leaves the others blank', () => {
    expect(resultsTable(figures).split('\n').slice(2)).toEqual([
      '| read | GET throughput | 900 req/s | 9000 (raw pg) | 0.1 | ratio ≥ 0.4 | missed |',
      '| projection | lag p99 | 24 ms |  |  | < 50 ms | met |',
      '| floor | no-op GET | 4000 req/s |  |  |  |  |',
    ]);
  });

  it('counts the targets met and names each one missed', () => {
    expect(verdictSummary(figures)).toBe('Targets met: 1 of 2.\n- missed: read, GET throughput: 900 req/s (ratio 0.1), target ratio ≥ 0.4');
  });
});
