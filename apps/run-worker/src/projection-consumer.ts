import type { JsMsg } from '@nats-io/jetstream';
import type { RunView } from '@wrs/domain';
import { toRunView } from '@wrs/domain';
import { backoffFor, runEventOf, type Disposition, type StreamRunEvent } from '@wrs/messaging';
import type { DeliveredEvent, ProjectedRun, RunProjection } from '@wrs/projection';
import { observeProjected } from './projection-metrics';

/** Runs `fn` in the trace of the batch's message at `index` (or just runs it). */
export type WithinMessage = <R>(index: number, fn: () => R) => R;

/** Reads one event of the events stream by its sequence: null when the stream holds none there. */
export interface EventsBySeq {
  bySeq(seq: number): Promise<StreamRunEvent | null>;
}

const untraced: WithinMessage = (_index, fn) => fn();

/** How many holes one batch fills in a row before it leaves the rest to redelivery. */
const MAX_HOLES_PER_BATCH = 64;

/**
 * Projects events into Postgres a batch at a time, acknowledges after the commit, then calls `onProjected`
 * (which pokes the reconciler). A failed batch is retried one message at a time, so one bad message holds
 * back no other. A missing event is read from JetStream at once rather than after the ack wait;
 * one the stream no longer holds (retention) is skipped.
 */
export class ProjectionConsumer {
  constructor(
    private readonly projection: RunProjection,
    private readonly onProjected: (run: RunView) => void,
    private readonly events: EventsBySeq,
    private readonly onHoleError: (error: unknown, hole: { runId: string; seq: number }) => void = () => undefined,
  ) {}

  async handleBatch(messages: readonly JsMsg[], within: WithinMessage = untraced): Promise<Disposition[]> {
    const parsed = messages.map(runEventOf);
    const events = parsed.flatMap((p, index) => (p ? [{ ...p, index }] : []));
    try {
      await this.fillHoles(await this.projectAndNotify(events, within));
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
        await this.fillHoles(await this.projectAndNotify([{ ...p, index }], within));
        dispositions.push('ack');
      } catch {
        dispositions.push({ retryAfterMs: backoffFor(messages[index]!) });
      }
    }
    return dispositions;
  }

  /**
   * Best effort: the batch is committed whatever happens here, and a hole left open is filled when
   * JetStream delivers its event again.
   */
  private async fillHoles(projected: readonly ProjectedRun[]): Promise<void> {
    const holes = projected.filter((p) => p.missing !== null).map((p) => ({ runId: p.runId, seq: p.missing! }));
    for (let filled = 0; holes.length > 0 && filled < MAX_HOLES_PER_BATCH; filled++) {
      const hole = holes.shift()!;
      try {
        const event = await this.events.bySeq(hole.seq);
        if (!event || event.runId !== hole.runId) {
          await this.foldAcross(hole.runId);
          continue;
        }
        const after = await this.projectAndNotify([{ ...event, index: 0 }], untraced);
        holes.push(...after.filter((p) => p.missing !== null && p.missing !== hole.seq).map((p) => ({ runId: p.runId, seq: p.missing! })));
      } catch (error) {
        this.onHoleError(error, hole);
      }
    }
  }

  private async foldAcross(runId: string): Promise<void> {
    const run = await this.projection.foldAcrossHole(runId);
    if (run?.state) {
      this.onProjected(toRunView(run.state, run.version, run.stateVersion));
    }
  }

  private async projectAndNotify(events: readonly (DeliveredEvent & { index: number })[], within: WithinMessage): Promise<ProjectedRun[]> {
    const projected = await this.projection.projectBatch(events);
    for (const run of projected) {
      const own = events.filter((e) => e.runId === run.runId);
      // Once per newly stored event, even if the batch carried it twice.
      const applied = new Map(own.filter((e) => run.appliedSeqs.includes(e.seq)).map((e) => [e.seq, e.event]));
      applied.forEach((event) => observeProjected(event));
      const state = run.state;
      const last = own[own.length - 1];
      if (state && last) {
        // In the trace of the run's latest message: what the reconciler does next continues it.
        within(last.index, () => this.onProjected(toRunView(state, run.version, run.stateVersion)));
      }
    }
    return projected;
  }
}
