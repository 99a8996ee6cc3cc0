import { verdictOf } from './stray-workloads';

const GRACE = 60_000;
const CREATED = Date.parse('2026-11-22T08:00:00.000Z');
const workload = { runId: 'r', workspaceId: 'ws', createdAtMs: CREATED, handle: 'h' };

describe('what the cleanup does with a workload, from what the projection says of its run', () => {
  it('removes the workload of a terminal run at once, however young', () => {
    expect(verdictOf(workload, true, CREATED, GRACE)).toEqual({ kind: 'remove', reason: 'terminal' });
  });

  it('keeps the workload of an unfinished run, however old', () => {
    expect(verdictOf(workload, false, CREATED + 100 * GRACE, GRACE)).toEqual({ kind: 'keep' });
  });

  it('keeps the workload of a run not projected yet within the grace period, then asks the event store', () => {
    expect(verdictOf(workload, undefined, CREATED + GRACE - 1, GRACE)).toEqual({ kind: 'keep' });
    expect(verdictOf(workload, undefined, CREATED + GRACE, GRACE)).toEqual({ kind: 'ask-events' });
  });

  it('removes an old workload that names no workspace (no event of its run can be found) as an orphan', () => {
    expect(verdictOf({ ...workload, workspaceId: null }, undefined, CREATED + GRACE, GRACE)).toEqual({ kind: 'remove', reason: 'orphan' });
  });
});
