import { stateAfter, type Run, type RunEvent, type RunEventType, type RunState } from '../types';
import { EXIT } from './exit-codes';
import { exitCodeFor } from './follow-view';
import { describeEvent, runLines } from './render';

/**
 * A newer server may answer a run state or an event kind this client was not generated with (the
 * contract adds them in a minor version and says to treat an unknown state as not terminal): the
 * client and the CLI carry on instead of crashing. The event stream's skipping of unknown kinds is
 * in follow.int.spec.ts.
 */
describe('values a newer contract may add', () => {
  const run = {
    id: '7b0f4c1e-3c1a-4d6e-9a53-6c0f0f1f2a3b',
    workspaceId: 'ws',
    state: 'paused' as RunState,
    terminal: false,
    workload: { image: 'busybox' },
    provider: 'auto',
    region: 'auto',
    placement: null,
    idempotencyKey: 'k',
    createdAt: '2026-01-01T00:00:00Z',
    dispatchedAt: null,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    failure: null,
    cancellation: null,
    logLines: 0,
    version: 3,
    somethingNew: { nested: true },
  } as unknown as Run;

  it('an unknown run state is shown as it is, and ends a follow without an error exit', () => {
    expect(runLines(run)[0]).toBe(`run ${run.id}  paused (not finished)`);
    expect(exitCodeFor('paused' as RunState)).toBe(EXIT.ok);
  });

  it('an unknown event kind changes no state and prints no line', () => {
    const event = { type: 'run.paused', runId: run.id, workspaceId: 'ws', time: '2026-01-01T00:00:00Z', data: {} } as unknown as RunEvent;
    expect(describeEvent(event)).toBeUndefined();
    expect(stateAfter('run.paused' as RunEventType)).toBeUndefined();
  });
});
