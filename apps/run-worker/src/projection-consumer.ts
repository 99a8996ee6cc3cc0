import type { JsMsg } from '@nats-io/jetstream';
import type { RunView } from '@wrs/domain';
import { toRunView } from '@wrs/domain';
import { backoffFor, runEventOf, type Disposition } from '@wrs/messaging';
import type { DeliveredEvent, RunProjection } from '@wrs/persistence';
import { observeProjected } from './projection-metrics';

/** Runs `fn` in the trace of the batch's message at `index` (or just runs it). */
export type WithinMessage = <R>(index: number, fn: () => R) => R;

const untraced: WithinMessage = (_index, fn) => fn();

/**
 * Projects events into Postgres a batch at a time, acknowledges after the commit, then tells who
 * cares. A message that cannot be an event of a run is dropped; if a batch fails, its messages are
 * projected one by one, so one bad message cannot hold the others back.
 */
export class ProjectionConsumer {
  constructor(
    private readonly projection: RunProjection,
    private readonly onProjected: (run: RunView) => void,
  ) {}

  async handleBatch(messages: readonly JsMsg[], within: WithinMessage = untraced): Promise<Disposition[]> {
    const parsed = messages.map(runEventOf);
    const events = parsed.flatMap((p, index) => (p ? [{ ...p, index }] : []));
    try {
      await this.projectAndTell(events, within);
      return parsed.map((p) => (p ? 'ack' : 'drop'));
    } catch (error) {
      if (events.length <= 1) {
        throw error;
      }
    }
    const dispositions: Disposition[] = [];
    for (const [index, p] of parsed.entries()) {
      if (!p) {
        dispositions.push('drop');
        continue;
      }
      try {
        await this.projectAndTell([{ ...p, index }], within);
        dispositions.push('ack');
      } catch {
        dispositions.push({ retryAfterMs: backoffFor(messages[index]!) });
      }
    }
    return dispositions;
  }

  private async projectAndTell(events: readonly (DeliveredEvent & { index: number })[], within: WithinMessage): Promise<void> {
    for (const run of await this.projection.projectBatch(events)) {
      const own = events.filter((e) => e.runId === run.runId);
      // Once per newly stored event, even if the batch carried it twice.
      const applied = new Map(own.filter((e) => run.appliedSeqs.includes(e.seq)).map((e) => [e.seq, e.event]));
      applied.forEach((event) => observeProjected(event));
      const state = run.state;
      const last = own[own.length - 1];
      if (state && last) {
        // In the trace of the run's latest message: what the reconciler does next continues it.
        within(last.index, () => this.onProjected(toRunView(state, run.version)));
      }
    }
  }
}
