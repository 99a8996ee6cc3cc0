import type { RunView } from '@wrs/domain';
import { ObserveSchedule } from './observe-schedule';

const T0 = Date.parse('2026-11-26T12:00:00Z');

function runOf(state: RunView['state'], extra: Partial<RunView> = {}): RunView {
  return {
    runId: 'r1',
    state,
    startedAt: new Date(T0).toISOString(),
    deadline: null,
    workload: { image: 'img' },
    ...extra,
  } as unknown as RunView;
}

/** The times, from T0, at which a quiet running run is due, over `untilMs` checked every `stepMs`. */
function looksOf(schedule: ObserveSchedule, run: RunView, untilMs: number, stepMs = 100): number[] {
  const looks: number[] = [];
  for (let t = 0; t <= untilMs; t += stepMs) {
    if (schedule.due(run, T0 + t)) {
      looks.push(t);
      schedule.looking(run.runId);
      schedule.looked(run, false, T0 + t);
    }
  }
  return looks;
}

describe('ObserveSchedule', () => {
  it('backs a quiet run off from the base gap, doubling up to the cap', () => {
    const schedule = new ObserveSchedule(200, 1_600);
    expect(looksOf(schedule, runOf('running'), 8_000)).toEqual([0, 200, 600, 1400, 3000, 4600, 6200, 7800]);
  });

  it('a look that changed the run brings the gap back to the base', () => {
    const schedule = new ObserveSchedule(200, 1_600);
    const run = runOf('running');
    looksOf(schedule, run, 3_000);
    schedule.looked(run, true, T0 + 3_000);
    expect(schedule.due(run, T0 + 3_199)).toBe(false);
    expect(schedule.due(run, T0 + 3_200)).toBe(true);
  });

  it('a wake makes the run due at once, also when it comes while a look is under way', () => {
    const schedule = new ObserveSchedule(200, 10_000);
    const run = runOf('running');
    looksOf(schedule, run, 5_000);
    expect(schedule.due(run, T0 + 5_001)).toBe(false);
    schedule.wake(run.runId);
    expect(schedule.due(run, T0 + 5_001)).toBe(true);

    // Woken during the look: the look may have read the workload before the change, so it is due again.
    schedule.looking(run.runId);
    schedule.wake(run.runId);
    schedule.looked(run, false, T0 + 5_001);
    expect(schedule.due(run, T0 + 5_002)).toBe(true);

    // Woken before the look: that look answers it, and the next is a base gap away.
    schedule.wake(run.runId);
    schedule.looking(run.runId);
    schedule.looked(run, false, T0 + 5_002);
    expect(schedule.due(run, T0 + 5_003)).toBe(false);
    expect(schedule.due(run, T0 + 5_202)).toBe(true);
  });

  it("a provider's hint of the next change is kept, when sooner than the gap", () => {
    const schedule = new ObserveSchedule(200, 10_000);
    const run = runOf('running');
    looksOf(schedule, run, 5_000);
    schedule.looking(run.runId);
    schedule.lookAt(run.runId, T0 + 5_050);
    schedule.looked(run, false, T0 + 5_000);
    expect(schedule.due(run, T0 + 5_049)).toBe(false);
    expect(schedule.due(run, T0 + 5_050)).toBe(true);
  });

  it('queued and canceling runs are always due; a deadline or a time limit inside the gap is a look of its own', () => {
    const schedule = new ObserveSchedule(200, 10_000);
    // Six quiet looks: the next one is 6.4 s away.
    const quiet = (run: RunView): RunView => {
      for (let i = 0; i < 6; i++) {
        schedule.looked(run, false, T0);
      }
      return run;
    };
    expect(schedule.due(quiet(runOf('queued', { runId: 'q' })), T0 + 1)).toBe(true);
    expect(schedule.due(quiet(runOf('canceling', { runId: 'c' })), T0 + 1)).toBe(true);
    const withDeadline = quiet(runOf('running', { runId: 'd', deadline: new Date(T0 + 100).toISOString() }));
    expect(schedule.due(withDeadline, T0 + 99)).toBe(false);
    expect(schedule.due(withDeadline, T0 + 100)).toBe(true);
    // Timed out once more than its limit has passed since the start (hasTimedOut): 1 s and 1 ms.
    const limited = quiet(runOf('running', { runId: 't', workload: { image: 'img', timeoutSeconds: 1 } } as Partial<RunView>));
    expect(schedule.due(limited, T0 + 1_000)).toBe(false);
    expect(schedule.due(limited, T0 + 1_001)).toBe(true);
    const quietWithoutLimits = quiet(runOf('running', { runId: 'n' }));
    expect(schedule.due(quietWithoutLimits, T0 + 6_399)).toBe(false);
    expect(schedule.due(quietWithoutLimits, T0 + 6_400)).toBe(true);
  });

  it('a finished run is forgotten: a later look at the same id starts from the base gap', () => {
    const schedule = new ObserveSchedule(200, 10_000);
    const run = runOf('running');
    looksOf(schedule, run, 5_000);
    schedule.forget(run.runId);
    expect(schedule.due(run, T0 + 5_001)).toBe(true);
  });

  it('names the runs due by now, up to a limit, skipping those being looked at', () => {
    const schedule = new ObserveSchedule(200, 10_000);
    for (const runId of ['a', 'b', 'c', 'd']) {
      schedule.looked(runOf('running', { runId }), false, T0);
    }
    schedule.looked(runOf('running', { runId: 'later' }), false, T0 + 1_000);
    expect(schedule.dueBy(T0 + 200, 10)).toEqual(['a', 'b', 'c', 'd']);
    expect(schedule.dueBy(T0 + 200, 2)).toEqual(['a', 'b']);
    expect(schedule.dueBy(T0 + 200, 2, (runId) => runId === 'a' || runId === 'b')).toEqual(['c', 'd']);
  });
});
