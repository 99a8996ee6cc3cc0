import { metricsRegistry } from '@wrs/observability';
import { StreamNames } from '@wrs/messaging';
import { idsFromSubject } from './observed-handler';
import { observeProjected } from './projection-metrics';

/** The sum of a series (`name`, or a histogram's `name_count`/`name_sum`) over the given labels. */
async function value(name: string, labels: Record<string, string> = {}): Promise<number> {
  const base = name.replace(/_(count|sum)$/, '');
  const metric = await (metricsRegistry.getSingleMetric(base) ?? metricsRegistry.getSingleMetric(name))?.get();
  return (metric?.values ?? [])
    .filter((v) => (v as { metricName?: string }).metricName === undefined || (v as { metricName?: string }).metricName === name)
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('what the worker records when an event is projected', () => {
  it('observes the lag from the event time, and counts a terminal event once by its state', async () => {
    const at = '2026-11-22T00:00:00.000Z';
    const lagCount = await value('wrs_projection_lag_seconds_count');
    const lagSum = await value('wrs_projection_lag_seconds_sum');
    observeProjected({ type: 'run.started', data: { at } }, Date.parse(at) + 1500);
    observeProjected(
      { type: 'run.failed', data: { at, failure: { code: 'timed_out', message: 'x' }, exitCode: null } },
      Date.parse(at) + 500,
    );
    expect((await value('wrs_projection_lag_seconds_count')) - lagCount).toBe(2);
    expect((await value('wrs_projection_lag_seconds_sum')) - lagSum).toBeCloseTo(2, 5);
    expect(await value('wrs_runs_finished_total', { state: 'failed' })).toBe(1);
    expect(await value('wrs_runs_finished_total', { state: 'started' })).toBe(0);
  });

  it('reads the run and workspace from command and event subjects', () => {
    const names = new StreamNames('wrs');
    expect(idsFromSubject({ subject: names.cancelCommand('ws-1', 'run-1') })).toEqual({ workspaceId: 'ws-1', runId: 'run-1' });
    expect(idsFromSubject({ subject: names.runEvents('ws-1', 'run-1') })).toEqual({ workspaceId: 'ws-1', runId: 'run-1' });
  });
});
