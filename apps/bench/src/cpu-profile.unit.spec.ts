import { placeOf, selfTime, type CpuProfile } from './cpu-profile';

const frame = (functionName: string, url: string, lineNumber = 0): { functionName: string; url: string; lineNumber: number } => ({ functionName, url, lineNumber });

describe('selfTime: a .cpuprofile\'s self time by function and place', () => {
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

  it('adds each sample\'s delta to its function and place, leaving idle out of the busy time', () => {
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

  it('skips the first milliseconds (start-up) when asked', () => {
    // Elapsed times of the samples: 1.0, 1.5, 1.8, 2.3, 2.5, 6.5 ms.
    expect(selfTime(profile, 2).busyUs).toBe(700);
  });

  it('names a scoped package by its scope and name', () => {
    expect(placeOf('file:///x/node_modules/@nestjs/core/router/router-proxy.js')).toBe('@nestjs/core');
    expect(placeOf('node:internal/streams/writable')).toBe('node:internal/streams/writable');
  });
});
