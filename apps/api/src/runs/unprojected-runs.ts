import { Injectable } from '@nestjs/common';
import { foldSequenced, isTerminalEventType, toRunView, type RunView } from '@wrs/domain';
import { RunEventStore } from '@wrs/messaging';

/**
 * Read-your-writes for a run the projection has not caught up with (milliseconds after its create):
 * its state rebuilt from its events in JetStream, with the same versions the projection would give it.
 */
@Injectable()
export class UnprojectedRuns {
  constructor(private readonly events: RunEventStore) {}

  async find(workspaceId: string, runId: string): Promise<RunView | null> {
    const { events } = await this.events.read(workspaceId, runId);
    const { state, version, stateVersion } = foldSequenced(events);
    return state ? toRunView(state, version, stateVersion) : null;
  }

  /** Whether the run's last stored event ends it: one message get, far cheaper than `find`. */
  async hasEnded(workspaceId: string, runId: string): Promise<boolean> {
    const last = await this.events.last(workspaceId, runId);
    return last !== null && isTerminalEventType(last.event.type);
  }
}
