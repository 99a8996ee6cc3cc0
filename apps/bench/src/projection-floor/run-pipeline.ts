import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@wrs/domain';
import type { DeliveredEvent } from '@wrs/projection';

const at = (second: number): string => new Date(Date.UTC(2026, 10, 27, 10, 0, second)).toISOString();
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

/** The end-to-end scenario's run: created, dispatched, started, succeeded (four events, no log lines). */
function lifecycle(runId: string): RunEvent[] {
  return [
    {
      type: 'run.created',
      data: {
        runId,
        workspaceId: 'bench',
        workload: { image: 'busybox', env: { SIM_DURATION_MS: '50' } },
        provider: 'auto',
        region: 'auto',
        idempotencyKey: runId,
        at: at(0),
      },
    },
    { type: 'run.dispatched', data: { placement, at: at(1) } },
    { type: 'run.started', data: { at: at(2) } },
    { type: 'run.succeeded', data: { exitCode: 0, at: at(3) } },
  ];
}

/**
 * Runs in a pipeline, as the projection meets them at a steady rate: each batch starts a run and takes
 * every earlier unfinished run one event further, so a batch holds four events of four runs at four
 * stages and each run's row is written four times, once per batch (at 100 runs/s the end-to-end
 * scenario writes it 3.5-3.8 times: the rows per run of its statements tables). Sequences are the stream's: one counter for all runs.
 */
export function* runPipeline(): Generator<DeliveredEvent[], never> {
  let seq = 0;
  const active: { runId: string; next: number; previous: number; events: RunEvent[] }[] = [];
  for (;;) {
    const runId = randomUUID();
    active.push({ runId, next: 0, previous: 0, events: lifecycle(runId) });
    const batch: DeliveredEvent[] = [];
    for (const run of active) {
      seq++;
      batch.push({ runId: run.runId, seq, previous: run.previous, event: run.events[run.next]! });
      run.previous = seq;
      run.next++;
    }
    while (active.length > 0 && active[0]!.next >= active[0]!.events.length) {
      active.shift();
    }
    yield batch;
  }
}
