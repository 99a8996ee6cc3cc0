import { EssentialNames, eventIndexOf, stateAfter } from './essential-names';

describe("the essential program's names", () => {
  it("keeps its streams under the bench's namespace, so the bench's clean-up (streams named <NAMESPACE>_...) removes them", () => {
    const names = new EssentialNames('bench1a2b3c');
    expect(names.eventsStream).toBe('BENCH1A2B3C_ESSENTIAL_RUN_EVENTS');
    expect(names.claimsStream.startsWith('BENCH1A2B3C_')).toBe(true);
    // The stack's subject shape, under a first token of its own: the stack's `bench1a2b3c.evt.>` never matches it.
    expect(names.runEvents('bench', 'r1')).toBe('bench1a2b3c_essential.evt.bench.r1');
    expect(names.claim('bench', 'k')).toBe('bench1a2b3c_essential.idem.bench.k');
    expect(names.table).toBe('"bench1a2b3c".essential_runs');
  });

  it("reads an event's index in its run from its message id, and the state it leaves the run in", () => {
    expect(eventIndexOf('0b5c1f0e-3f1a-4c55-9a41-1d0c2f8e9b10:3')).toBe(3);
    expect(eventIndexOf(undefined)).toBe(-1);
    expect(eventIndexOf('no-index:x')).toBe(-1);
    expect(['run.created', 'run.dispatched', 'run.started', 'run.succeeded', 'run.log'].map(stateAfter)).toEqual([
      'queued',
      'starting',
      'running',
      'succeeded',
      'unknown',
    ]);
  });
});
