import { decide, fold, type RunCommand, type RunEvent } from '@wrs/domain';
import { VersionConflictError, type RunEventStore } from '@wrs/messaging';

export interface HandledCommand {
  readonly appended: readonly RunEvent[];
  readonly version: number;
}

const MAX_ATTEMPTS = 20;

/**
 * Load, decide, append: folds the run's events from JetStream, asks the pure decider, and appends
 * with the version it read. A concurrent writer makes the append conflict; the decision is then made
 * again on the newer state, so no writer's event is lost and none is applied to a stale state.
 */
export class RunCommandHandler {
  constructor(private readonly store: RunEventStore) {}

  async execute(workspaceId: string, runId: string, command: RunCommand, messageIdBase: string): Promise<HandledCommand> {
    for (let attempt = 1; ; attempt++) {
      const { events, version } = await this.store.read(workspaceId, runId);
      const decided = decide(
        command,
        fold(events.map((e) => e.event)),
      );
      if (decided.length === 0) {
        return { appended: [], version };
      }
      try {
        const newVersion = await this.store.append(workspaceId, runId, decided, version, `${messageIdBase}@${version}`);
        return { appended: decided, version: newVersion };
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= MAX_ATTEMPTS) {
          throw error;
        }
      }
    }
  }
}
