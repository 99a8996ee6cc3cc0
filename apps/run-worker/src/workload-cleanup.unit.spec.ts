import type { HeldWorkload, RunProvider } from './providers/provider';
import { WorkloadCleanup } from './workload-cleanup';

const held = (runId: string): HeldWorkload => ({ runId, workspaceId: 'ws', createdAtMs: 0, handle: runId });

describe('WorkloadCleanup', () => {
  it("removes nothing more once stopped: a pass under way does not hold up the worker's shutdown", async () => {
    const removed: string[] = [];
    let stopping: Promise<void> | undefined;
    let cleanup: WorkloadCleanup;
    const provider = {
      name: 'container',
      listHeld: () => Promise.resolve([held('a'), held('b'), held('c')]),
      removeHeld: (w: HeldWorkload) => {
        removed.push(w.runId);
        stopping ??= cleanup.stop(); // the worker stops while the first removal is under way
        return Promise.resolve();
      },
    } as unknown as RunProvider;
    cleanup = new WorkloadCleanup(
      [provider],
      { terminality: (ids) => Promise.resolve(new Map(ids.map((id) => [id, true]))), recorded: () => Promise.resolve(true) },
      {
        intervalMs: 60_000,
        graceMs: 0,
        maxRemovalsPerPass: 10,
        onRemoved: () => undefined,
        onError: (_p, e) => {
          throw e;
        },
      },
    );
    const pass = await cleanup.pass();
    await stopping;
    expect(removed).toEqual(['a']);
    expect(pass.map((r) => r.workload.runId)).toEqual(['a']);
  });
});
