import { Deadlines, Heartbeats } from './stream-timers';

describe('the timers every open stream shares', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('a stream whose heartbeat throws costs the others none of theirs, and the timer goes on', () => {
    const heartbeats = new Heartbeats<{ heartbeat: () => void }>(1000);
    const broken = {
      heartbeat: jest.fn(() => {
        throw new Error('write after end');
      }),
    };
    const healthy = { heartbeat: jest.fn() };
    heartbeats.add(broken);
    heartbeats.add(healthy);
    jest.advanceTimersByTime(3000);
    expect(healthy.heartbeat).toHaveBeenCalledTimes(3);
    expect(broken.heartbeat).toHaveBeenCalledTimes(3);
    heartbeats.delete(broken);
    heartbeats.delete(healthy);
    expect(heartbeats.ticking).toBe(false);
  });

  it('deadlines count on the monotonic clock: a wall-clock step ends no stream early', () => {
    const deadlines = new Deadlines<{ close: () => void }>(30 * 60_000);
    const first = { close: jest.fn() };
    const second = { close: jest.fn() };
    deadlines.add(first);
    jest.advanceTimersByTime(5 * 60_000);
    deadlines.add(second);
    jest.setSystemTime(Date.now() + 10 * 60_000); // NTP or a resumed VM moves the wall clock on
    jest.advanceTimersByTime(25 * 60_000); // the first stream's 30 minutes
    expect(first.close).toHaveBeenCalledTimes(1);
    expect(second.close).not.toHaveBeenCalled();
    jest.advanceTimersByTime(5 * 60_000); // the second's
    expect(second.close).toHaveBeenCalledTimes(1);
    expect(deadlines.size).toBe(0);
  });
});
