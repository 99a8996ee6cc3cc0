import { containerSchedule, WORKER_FAILPOINTS } from './container-profile';

describe('the containers profile schedule', () => {
  it('is the same for the same seed and arms every worker failpoint at least once, inside the phase', () => {
    expect(containerSchedule(4242, 40)).toEqual(containerSchedule(4242, 40));
    for (const seconds of [10, 40, 120]) {
      const faults = containerSchedule(7, seconds);
      const armed = faults.flatMap((f) => (f.fault.kind === 'failpoint' ? [f.fault.name] : []));
      expect(new Set(armed)).toEqual(new Set(WORKER_FAILPOINTS));
      expect(faults.every((f) => f.fault.kind !== 'failpoint' || f.fault.sibling !== f.fault.target)).toBe(true);
      expect(faults.map((f) => f.at)).toEqual([...faults.map((f) => f.at)].sort((a, b) => a - b));
    }
  });
});
