import { randomUUID } from 'node:crypto';
import { loadWithCpu, type HttpLoad } from '../http-load';
import type { Figure } from '../figure';
import { atMost } from '../target';
import { round } from '../stats';
import type { FloorProcess } from './floor-process';

/** The api process and the floor's matching load, to set a create or read against the framework floor. */
export interface FloorComparison {
  readonly apiPid: number;
  readonly floor: HttpLoad;
  /** Whether this measurement carries the targets (one per scenario does); true when absent. */
  readonly judged?: boolean;
}

/** The floor's two answers, each measured like the api's create and read. */
export interface FloorLoads {
  readonly read: HttpLoad;
  readonly create: HttpLoad;
}

/** A no-op GET and a no-op POST with a create's JSON body, 64 connections each, as create and read are driven. */
export async function measureFloor(
  floor: FloorProcess,
  seconds: number,
  createBody: string,
): Promise<{ loads: FloorLoads; figures: Figure[] }> {
  const read = await loadWithCpu({ url: `${floor.url}/runs/${randomUUID()}`, connections: 64, duration: seconds }, floor.pid);
  const create = await loadWithCpu(
    {
      url: `${floor.url}/runs`,
      connections: 64,
      duration: seconds,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: createBody,
    },
    floor.pid,
  );
  const figures = (
    [
      ['GET /runs/{id} no-op', read],
      ["POST /runs no-op with a create's JSON body", create],
    ] as const
  ).flatMap(([what, load]): Figure[] => [
    { scenario: 'floor', metric: `${what}: throughput (64 connections)`, value: round(load.rate), unit: 'req/s' },
    { scenario: 'floor', metric: `${what}: latency p99`, value: load.result.latency.p99, unit: 'ms' },
    { scenario: 'floor', metric: `${what}: CPU per request (floor process)`, value: round(load.cpuMsPerRequest, 3), unit: 'ms' },
    { scenario: 'floor', metric: `${what}: non-2xx answers`, value: load.result.non2xx, unit: 'count' },
  ]);
  return { loads: { read, create }, figures };
}

/**
 * The api's create or read as a share of the floor: throughput, and the api process's CPU per request
 * as a multiple of the floor's. A create above 3x the floor's CPU is a finding to explain (issue #26).
 */
export function againstFloor(scenario: 'create' | 'read', api: HttpLoad, floor: HttpLoad, via: string, judged = true): Figure[] {
  const multiple = api.cpuMsPerRequest / floor.cpuMsPerRequest;
  return [
    {
      scenario,
      metric: `throughput against the framework floor (${via})`,
      value: round(api.rate),
      unit: 'req/s',
      baseline: { what: 'framework floor, no-op route, same middleware', value: round(floor.rate) },
      ratio: round(api.rate / floor.rate, 3),
    },
    {
      scenario,
      metric: `api CPU per request against the framework floor's (${via})${scenario === 'create' && judged ? '; above 3x is a finding to explain' : ''}`,
      value: round(api.cpuMsPerRequest, 3),
      unit: 'ms',
      baseline: { what: 'framework floor CPU per no-op request', value: round(floor.cpuMsPerRequest, 3) },
      ratio: round(multiple, 2),
      ...(scenario === 'create' && judged ? { target: atMost(3, 'ratio') } : {}),
    },
  ];
}
