import type { Figure } from '../figure';
import { round } from '../stats';

/** One load against the essential api, as its figures need it. */
export interface EssentialLoad {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  /** The essential api process's CPU over the load, per answered request. */
  readonly cpuMsPerRequest: number;
}

/** Our create and read as createThroughput and readThroughput name them, and the ratio targets they carry. */
const OURS = {
  create: { route: 'POST /runs', target: 0.15 },
  read: { route: 'GET /runs/{id}', target: 0.4 },
} as const;

/**
 * The essential api's create or read beside ours: its throughput against the raw baseline our judged
 * figure was measured against (the same number, same run), so its ratio says where the target
 * stands against the floor; its latency and CPU per request; and ours as a share of it. No targets:
 * they are judged on our figures alone. An absent figure of ours leaves the rows that need it without a ratio.
 */
export function essentialLoadFigures(scenario: 'create' | 'read', load: EssentialLoad, ours: readonly Figure[]): Figure[] {
  const { route, target } = OURS[scenario];
  const judged = ours.find((f) => f.scenario === scenario && f.metric.startsWith(`${route} throughput`) && f.target !== undefined);
  // The judged one: the create with the worker stopped is set against the floor too, without a target.
  const ourCpu = ours.find(
    (f) => f.scenario === scenario && f.metric.startsWith('api CPU per request') && (scenario === 'read' || f.target !== undefined),
  );
  const against = (value: number | undefined, of: number, digits: number): { ratio?: number } =>
    value !== undefined && of > 0 ? { ratio: round(value / of, digits) } : {};
  const what = `essential work: ${route}`;
  return [
    {
      scenario,
      metric: `${what} throughput (64 connections${scenario === 'create' ? ', its worker running' : ''}; a ratio below ${target} puts the ${scenario} target out of the essential work's reach on this box)`,
      value: round(load.rate),
      unit: 'req/s',
      ...(judged?.baseline ? { baseline: judged.baseline, ...against(load.rate, judged.baseline.value, 3) } : {}),
    },
    { scenario, metric: `${what} latency p50`, value: load.p50, unit: 'ms' },
    { scenario, metric: `${what} latency p99`, value: load.p99, unit: 'ms' },
    { scenario, metric: `${what} non-2xx answers`, value: load.non2xx, unit: 'count' },
    { scenario, metric: `${what} CPU per request (essential api process)`, value: round(load.cpuMsPerRequest, 3), unit: 'ms' },
    ...(judged
      ? [
          {
            scenario,
            metric: `${route} throughput against the essential work's (straight to the api)`,
            value: judged.value,
            unit: 'req/s',
            baseline: { what: 'essential work, same load', value: round(load.rate) },
            ...against(judged.value, load.rate, 3),
          },
        ]
      : []),
    ...(ourCpu
      ? [
          {
            scenario,
            metric: `api CPU per request against the essential api's (straight to the api)`,
            value: ourCpu.value,
            unit: 'ms',
            baseline: { what: 'essential api CPU per request, same load', value: round(load.cpuMsPerRequest, 3) },
            ...against(ourCpu.value, load.cpuMsPerRequest, 2),
          },
        ]
      : []),
  ];
}
