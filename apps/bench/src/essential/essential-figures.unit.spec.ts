import type { Figure } from '../figure';
import { atLeast, atMost, below } from '../target';
import { essentialLoadFigures, type EssentialLoad } from './essential-figures';

const load: EssentialLoad = { rate: 1200, p50: 40, p99: 90, non2xx: 0, cpuMsPerRequest: 0.8 };

/**
 * Our create's figures as createThroughput and againstFloor name them: the run with the worker stopped
 * without a target (its CPU against the floor first, so the judged one must be told apart), the judged one with.
 */
const ours: Figure[] = [
  {
    scenario: 'create',
    metric: 'POST /runs throughput (64 connections, straight to the api, worker stopped)',
    value: 900,
    unit: 'req/s',
    baseline: { what: 'raw JetStream publish, 64 in flight', value: 9000 },
    ratio: 0.1,
  },
  {
    scenario: 'create',
    metric: 'POST /runs throughput (64 connections, straight to the api)',
    value: 600,
    unit: 'req/s',
    baseline: { what: 'raw JetStream publish, 64 in flight', value: 10_000 },
    ratio: 0.06,
    target: atLeast(0.15, 'ratio'),
  },
  { scenario: 'create', metric: 'POST /runs latency p99 (straight to the api)', value: 150, unit: 'ms', target: below(100) },
  {
    scenario: 'create',
    metric: "api CPU per request against the framework floor's (straight to the api, worker stopped)",
    value: 1,
    unit: 'ms',
    baseline: { what: 'framework floor CPU per no-op request', value: 0.5 },
    ratio: 2,
  },
  {
    scenario: 'create',
    metric: "api CPU per request against the framework floor's (straight to the api); above 3x is a finding to explain",
    value: 2,
    unit: 'ms',
    baseline: { what: 'framework floor CPU per no-op request', value: 0.5 },
    ratio: 4,
    target: atMost(3, 'ratio'),
  },
  {
    scenario: 'read',
    metric: 'GET /runs/{id} throughput (64 connections, straight to the api)',
    value: 2000,
    unit: 'req/s',
    baseline: { what: 'raw pg query by primary key, 16 connections', value: 8000 },
    ratio: 0.25,
    target: atLeast(0.4, 'ratio'),
  },
];

describe("the essential api's create and read beside ours", () => {
  it('sets its create against the raw publish our judged create was measured against, and ours against it, with no target of its own', () => {
    const figures = essentialLoadFigures('create', load, ours);
    expect(figures[0]).toEqual({
      scenario: 'create',
      metric:
        "essential work: POST /runs throughput (64 connections, its worker running; a ratio below 0.15 puts the create target out of the essential work's reach on this box)",
      value: 1200,
      unit: 'req/s',
      baseline: { what: 'raw JetStream publish, 64 in flight', value: 10_000 },
      ratio: 0.12,
    });
    expect(figures.map((f) => [f.metric, f.value, f.ratio])).toEqual([
      [figures[0]!.metric, 1200, 0.12],
      ['essential work: POST /runs latency p50', 40, undefined],
      ['essential work: POST /runs latency p99', 90, undefined],
      ['essential work: POST /runs non-2xx answers', 0, undefined],
      ['essential work: POST /runs CPU per request (essential api process)', 0.8, undefined],
      ["POST /runs throughput against the essential work's (straight to the api)", 600, 0.5],
      ["api CPU per request against the essential api's (straight to the api)", 2, 2.5],
    ]);
    expect(figures.every((f) => f.target === undefined)).toBe(true);
  });

  it("sets its read against our read's raw pg baseline, and leaves out what needs a figure of ours that is absent", () => {
    const figures = essentialLoadFigures('read', { ...load, rate: 3000 }, ours);
    expect(figures[0]).toMatchObject({ baseline: { what: 'raw pg query by primary key, 16 connections', value: 8000 }, ratio: 0.375 });
    expect(figures[0]!.metric).toContain("a ratio below 0.4 puts the read target out of the essential work's reach on this box");
    expect(figures.at(-1)).toMatchObject({
      metric: "GET /runs/{id} throughput against the essential work's (straight to the api)",
      ratio: 0.667,
    });
  });

  it('reports its own figures without a ratio when our scenario gave no judged figure', () => {
    const figures = essentialLoadFigures('read', load, []);
    expect(figures).toHaveLength(5);
    expect(figures.some((f) => f.ratio !== undefined || f.baseline !== undefined)).toBe(false);
  });
});
