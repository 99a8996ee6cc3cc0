import {
  advanceVersions,
  decide,
  evolve,
  fold,
  foldSequenced,
  type MaybeRunState,
  type RunCommand,
  type RunEvent,
  type RunVersions,
} from '@wrs/domain';
import { VersionConflictError, type RunEventStore } from './run-event-store';

export interface HandledCommand {
  readonly appended: readonly RunEvent[];
  readonly version: number;
  /** The run's state at `version`: the state decided on with the appended events applied. */
  readonly state: MaybeRunState;
}

/** A state the caller already holds (the projection, or "no run yet") and the version it reflects. */
export interface Snapshot {
  readonly state: MaybeRunState;
  readonly version: number;
}

/** A run as its events say, with both its versions: what `decideOnEvents` checks and answers. */
export interface LoadedRun extends RunVersions {
  readonly state: MaybeRunState;
}

export interface DecidedOnEvents extends LoadedRun {
  readonly appended: readonly RunEvent[];
}

const MAX_ATTEMPTS = 20;

/**
 * Load, decide, append: folds the run's events, asks the pure decider, and appends with the version it
 * read. On a conflict it decides again on the newer state, so no event is lost or applied to a stale state.
 * A caller's snapshot saves the read: the events are loaded only if the append conflicts.
 */
export class RunCommandHandler {
  constructor(
    private readonly store: RunEventStore,
    /** Told of every decision made again because the state it was made on was stale (a metric). */
    private readonly onConflict: () => void = () => undefined,
  ) {}

  async execute(
    workspaceId: string,
    runId: string,
    command: RunCommand,
    messageIdBase: string,
    snapshot?: Snapshot,
  ): Promise<HandledCommand> {
    let known = snapshot;
    for (let attempt = 1; ; attempt++) {
      const { state, version } = known ?? (await this.load(workspaceId, runId));
      known = undefined;
      const decided = decide(command, state);
      if (decided.length === 0) {
        return { appended: [], version, state };
      }
      try {
        const newVersion = await this.store.append(workspaceId, runId, decided, version, `${messageIdBase}@${version}`);
        return { appended: decided, version: newVersion, state: decided.reduce(evolve, state) };
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= MAX_ATTEMPTS) {
          throw error;
        }
        this.onConflict();
      }
    }
  }

  /**
   * Like `execute`, always on the run's events (never a snapshot), with `check` asked before each
   * decision: a precondition on the run as it is then (the api's `If-Match`), which throws to refuse.
   * Answers the run after the decision with both versions.
   */
  async decideOnEvents(
    workspaceId: string,
    runId: string,
    command: RunCommand,
    messageIdBase: string,
    check: (run: LoadedRun) => void = () => undefined,
  ): Promise<DecidedOnEvents> {
    for (let attempt = 1; ; attempt++) {
      const { events } = await this.store.read(workspaceId, runId);
      const run = foldSequenced(events);
      check(run);
      const decided = decide(command, run.state);
      if (decided.length === 0) {
        return { ...run, appended: [] };
      }
      try {
        const recorded = await this.store.appendRecorded(workspaceId, runId, decided, run.version, `${messageIdBase}@${run.version}`);
        const versions = recorded.reduce(advanceVersions, { version: run.version, stateVersion: run.stateVersion });
        return { state: decided.reduce(evolve, run.state), ...versions, appended: decided };
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= MAX_ATTEMPTS) {
          throw error;
        }
        this.onConflict();
      }
    }
  }

  /** The run as its events say now. */
  current(workspaceId: string, runId: string): Promise<Snapshot> {
    return this.load(workspaceId, runId);
  }

  /** The run's last event sequence: one direct get, to see whether anything happened since a version. */
  lastVersion(workspaceId: string, runId: string): Promise<number> {
    return this.store.version(workspaceId, runId);
  }

  private async load(workspaceId: string, runId: string): Promise<Snapshot> {
    const { events, version } = await this.store.read(workspaceId, runId);
    return { state: fold(events.map((e) => e.event)), version };
  }
}
