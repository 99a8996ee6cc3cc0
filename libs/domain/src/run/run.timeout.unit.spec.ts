import { hasTimedOut, MAX_RUN_SECONDS } from './run.timeout';

const at = (ms: number): string => new Date(ms).toISOString();
const T0 = Date.parse('2026-11-25T08:00:00.000Z');

describe('a run past its time limit', () => {
  const workload = { image: 'busybox', timeoutSeconds: 60 };

  it('is a running run that has run longer than timeoutSeconds since it started', () => {
    const run = { state: 'running', dispatchedAt: at(T0), startedAt: at(T0 + 10_000), workload };
    expect(hasTimedOut(run, T0 + 70_000)).toBe(false);
    expect(hasTimedOut(run, T0 + 70_001)).toBe(true);
  });

  it('is a starting run whose workload has not started timeoutSeconds after its dispatch', () => {
    const run = { state: 'starting', dispatchedAt: at(T0), startedAt: null, workload };
    expect(hasTimedOut(run, T0 + 60_000)).toBe(false);
    expect(hasTimedOut(run, T0 + 60_001)).toBe(true);
  });

  it('without timeoutSeconds, after a day; never while queued, canceling or finished', () => {
    const starting = { state: 'starting', dispatchedAt: at(T0), startedAt: null, workload: { image: 'busybox' } };
    expect(hasTimedOut(starting, T0 + MAX_RUN_SECONDS * 1000)).toBe(false);
    expect(hasTimedOut(starting, T0 + MAX_RUN_SECONDS * 1000 + 1)).toBe(true);
    for (const state of ['queued', 'canceling', 'succeeded', 'failed']) {
      expect(hasTimedOut({ state, dispatchedAt: at(T0), startedAt: at(T0), workload }, T0 + 10 * MAX_RUN_SECONDS * 1000)).toBe(false);
    }
  });
});
