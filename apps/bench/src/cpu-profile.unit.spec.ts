import { busyPerSecond, callersOf, placeOf, selfTime, type CpuProfile } from './cpu-profile';

const frame = (functionName: string, url: string, lineNumber = 0): { functionName: string; url: string; lineNumber: number } => ({
  functionName,
  url,
  lineNumber,
});

describe("selfTime: a .cpuprofile's self time by function and place", () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(idle)', '') },
      { id: 2, callFrame: frame('handle', 'file:///x/node_modules/express/lib/router/index.js', 9) },
      { id: 3, callFrame: frame('', 'file:///x/dist/apps/api/src/runs/runs.service.js', 41) },
      { id: 4, callFrame: frame('(garbage collector)', '') },
    ],
    startTime: 0,
    samples: [1, 2, 3, 2, 4, 1],
    timeDeltas: [1000, 500, 300, 500, 200, 4000],
  };

  it("adds each sample's delta to its function and place, leaving idle out of the busy time", () => {
    const result = selfTime(profile);
    expect(result.busyUs).toBe(1500);
    expect(result.byFunction[0]).toEqual(['handle express:10', 1000]);
    expect(result.byPlace).toEqual([
      ['express', 1000],
      ['dist/apps/api/src/runs/runs.service.js', 300],
      ['(native)', 200],
    ]);
    expect(result.byFunction.map(([name]) => name)).toContain('(anonymous) dist/apps/api/src/runs/runs.service.js:42');
  });

  it('keeps only the samples of a window when asked', () => {
    // Elapsed times of the samples: 1.0, 1.5, 1.8, 2.3, 2.5, 6.5 ms.
    expect(selfTime(profile, { fromMs: 2 }).busyUs).toBe(700);
    expect(selfTime(profile, { fromMs: 1.5, toMs: 2.3 }).busyUs).toBe(800);
  });

  it('names a scoped package by its scope and name', () => {
    expect(placeOf('file:///x/node_modules/@nestjs/core/router/router-proxy.js')).toBe('@nestjs/core');
    expect(placeOf('node:internal/streams/writable')).toBe('node:internal/streams/writable');
  });
});

describe('busyPerSecond and callersOf: where in a profile to look', () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
      { id: 2, callFrame: frame('handle', 'file:///x/dist/apps/api/src/main.js', 4), children: [3] },
      { id: 3, callFrame: frame('parse', 'file:///x/dist/apps/api/src/body.js'), children: [4] },
      { id: 4, callFrame: frame('writev', 'node:internal/stream_base_commons') },
      { id: 5, callFrame: frame('writev', 'node:internal/stream_base_commons') },
      { id: 6, callFrame: frame('(idle)', '') },
    ],
    startTime: 0,
    samples: [4, 6, 5, 4, 4],
    timeDeltas: [400_000, 400_000, 400_000, 900_000, 100_000],
  };

  it('sums busy ms per second of the profile, idle left out', () => {
    // Elapsed: 0.4 s (busy), 0.8 s (idle), 1.2, 2.1, 2.2 s (busy).
    expect(busyPerSecond(profile)).toEqual([400, 400, 1000]);
  });

  it('sums the self time of a function by the stack that leads to it, within the window', () => {
    expect(callersOf(profile, 'writev')).toEqual([
      ['parse dist/apps/api/src/body.js:1 < handle dist/apps/api/src/main.js:5 < (root) (native):1', 1_400_000],
      ['(root) (native):1', 400_000],
    ]);
    expect(callersOf(profile, 'writev', { fromMs: 1000 }, 1)).toEqual([
      ['parse dist/apps/api/src/body.js:1', 1_000_000],
      ['(root) (native):1', 400_000],
    ]);
  });
});
