import { schedule } from './nemesis';

describe('the nemesis schedule', () => {
  it('is the same for the same seed (a printed seed replays the run) and differs for another', () => {
    expect(schedule(4242, 30, 'short')).toEqual(schedule(4242, 30, 'short'));
    expect(schedule(4242, 30, 'short')).not.toEqual(schedule(4243, 30, 'short'));
  });

  it('injects every kind of fault in the short profile, inside the phase, in time order', () => {
    const faults = schedule(7, 30, 'short');
    expect(new Set(faults.map((f) => f.fault.kind))).toEqual(
      new Set(['kill-service', 'kill-server', 'pause-service', 'pause-server', 'latency', 'reset', 'blackhole']),
    );
    expect(new Set(faults.filter((f) => f.fault.kind === 'kill-server').map((f) => f.fault.target))).toEqual(
      new Set(['nats', 'postgres', 'redis']),
    );
    const times = faults.map((f) => f.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.max(...times)).toBeLessThan(30);
  });

  it('keeps drawing rounds for the whole long profile', () => {
    const faults = schedule(7, 300, 'long');
    expect(faults.length).toBeGreaterThan(30);
    expect(Math.max(...faults.map((f) => f.at))).toBeGreaterThan(250);
  });
});
