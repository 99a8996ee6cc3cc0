import type { Immutable, RunReset } from '@wrs/contracts/types';
import type { RunView } from '@wrs/domain';
import { toRunResource } from '@wrs/edge';
import type { RunQueries } from '@wrs/persistence';
import type { FeedEvent } from './feed-event';
import type { RunEventFeed } from './run-event-feed';

/** A `reset` event: the run's events right after the client's id are gone. */
export interface StreamReset {
  readonly kind: 'reset';
  /** The SSE id it goes with: from there, a resume is exact again. */
  readonly id: number;
  readonly json: string;
  /** The run's current state, as the reset carries it. */
  readonly run: RunView | null;
}

/**
 * Never a silent gap: if the run's events right after `after` are gone (retention, purge), the
 * stream starts with a `reset` event carrying the run's current state and the first id still held.
 */
export class EventResets {
  constructor(
    private readonly feed: RunEventFeed,
    private readonly queries: RunQueries,
  ) {}

  /** `first` is the first event the stream delivers, or null when the run had none as it opened. */
  async check(workspaceId: string, runId: string, after: number, first: FeedEvent | null): Promise<StreamReset | null> {
    if (first && !(first.previous !== null && first.previous > after)) {
      return null;
    }
    const run = await this.queries.find(workspaceId, runId);
    if (!first) {
      // No event is held. Some were removed if the row folded events after the client's id (all of
      // them for a client with none); none if it has seen every event the row folded.
      if (!run || run.version <= after) {
        return null; // accepted, not yet created; or nothing after the client's id was ever stored
      }
      // The run may have been created and projected since the stream opened. Its events were removed
      // only if they are still missing now that its row is read (the chaos run saw false resets at id 0).
      if (await this.feed.last(workspaceId, runId)) {
        return null;
      }
    }
    const firstAvailableId = first?.seq ?? null;
    const reset: Immutable<RunReset> = {
      type: 'reset',
      runId,
      workspaceId,
      time: new Date().toISOString(),
      data: { reason: 'events_removed', firstAvailableId, run: run ? toRunResource(run) : null },
    };
    const json = JSON.stringify(reset);
    // With none held, the id is the row's version: a client resuming from there is told nothing again
    // (it has what the row holds), and an event appended later follows it without another reset.
    const id = firstAvailableId === null ? Math.max(after, run?.version ?? after) : firstAvailableId - 1;
    return { kind: 'reset', id, json, run };
  }
}
