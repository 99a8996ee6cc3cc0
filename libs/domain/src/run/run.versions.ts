import type { RunEvent } from './run.events';
import { evolve, type MaybeRunState } from './run.state';

/** An event as the event store keeps it: with its sequence. */
export interface SequencedEvent {
  readonly seq: number;
  readonly event: RunEvent;
}

/**
 * A run's two versions. `version` is the sequence of its last event (what an append expects);
 * `stateVersion` that of its last state-changing event: what the ETag names and `If-Match` protects,
 * so a log line does not make a client's view of the run stale.
 */
export interface RunVersions {
  readonly version: number;
  readonly stateVersion: number;
}

export const NO_VERSIONS: RunVersions = { version: 0, stateVersion: 0 };

/** Every event but a log line is a state change: a client that saw none of them decided on the current state. */
export function changesState(event: RunEvent): boolean {
  return event.type !== 'run.log';
}

export function advanceVersions(versions: RunVersions, recorded: SequencedEvent): RunVersions {
  return {
    version: recorded.seq,
    stateVersion: changesState(recorded.event) ? recorded.seq : versions.stateVersion,
  };
}

/** A run's state and versions after `events` (in sequence order), folded on from `start`. */
export function foldSequenced(
  events: readonly SequencedEvent[],
  start: { readonly state: MaybeRunState } & RunVersions = { state: null, ...NO_VERSIONS },
): { readonly state: MaybeRunState } & RunVersions {
  let state = start.state;
  let versions: RunVersions = { version: start.version, stateVersion: start.stateVersion };
  for (const recorded of events) {
    state = evolve(state, recorded.event);
    versions = advanceVersions(versions, recorded);
  }
  return { state, ...versions };
}
