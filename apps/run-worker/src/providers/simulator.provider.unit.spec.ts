import type { RunView } from '@wrs/domain';
import { SimulatorProvider } from './simulator.provider';

const DISPATCHED = Date.parse('2026-11-26T12:00:00Z');

function runOf(env: Record<string, string>): RunView {
  return {
    runId: 'r1',
    state: 'running',
    dispatchedAt: new Date(DISPATCHED).toISOString(),
    workload: { image: 'img', env },
  } as unknown as RunView;
}

describe('SimulatorProvider: when its workload next changes', () => {
  it('says when a pending run starts, a running one writes its next line, and when it ends', async () => {
    let now = DISPATCHED + 5;
    const simulator = new SimulatorProvider('simulator', () => now);
    const run = runOf({ SIM_START_DELAY_MS: '100', SIM_DURATION_MS: '1000', SIM_LOG_LINES: '3' });
    expect(await simulator.observe(run)).toEqual({ phase: 'pending', changesAtMs: DISPATCHED + 100 });
    // Three lines over 1,000 ms: due at 250, 500 and 750 ms after the start.
    now = DISPATCHED + 100;
    expect(await simulator.observe(run)).toEqual({ phase: 'running', changesAtMs: DISPATCHED + 100 + 250 });
    expect(await simulator.logs(run, 0)).toEqual([]);
    now = DISPATCHED + 100 + 250;
    expect((await simulator.logs(run, 0)).length).toBe(1);
    expect(await simulator.observe(run)).toEqual({ phase: 'running', changesAtMs: DISPATCHED + 100 + 500 });
    now = DISPATCHED + 100 + 750;
    expect((await simulator.logs(run, 0)).length).toBe(3);
    expect(await simulator.observe(run)).toEqual({ phase: 'running', changesAtMs: DISPATCHED + 100 + 1000 });
    now = DISPATCHED + 100 + 1000;
    expect(await simulator.observe(run)).toEqual({ phase: 'exited', exitCode: 0 });
  });

  it('without log lines, a running run changes next when it ends', async () => {
    const simulator = new SimulatorProvider('simulator', () => DISPATCHED + 30);
    const run = runOf({ SIM_START_DELAY_MS: '20', SIM_DURATION_MS: '60000' });
    expect(await simulator.observe(run)).toEqual({ phase: 'running', changesAtMs: DISPATCHED + 20 + 60_000 });
  });
});
