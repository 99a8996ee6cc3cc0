import { Injectable } from '@nestjs/common';
import { fold, toRunView, type RunView } from '@wrs/domain';
import { RunCommandBus, RunEventStore } from '@wrs/messaging';
import { pendingRun } from './pending-run';

/**
 * Read-your-writes for a run the projection has not caught up with (milliseconds after its create):
 * its state folded from its events in JetStream. A create accepted by an api from before the api
 * recorded the first event itself is still only a command until a worker decides it: that is
 * answered from the command, as the worker will record it.
 */
@Injectable()
export class UnprojectedRuns {
  constructor(
    private readonly events: RunEventStore,
    private readonly commands: RunCommandBus,
  ) {}

  async find(workspaceId: string, runId: string): Promise<RunView | null> {
    const { events, version } = await this.events.read(workspaceId, runId);
    const state = fold(events.map((e) => e.event));
    if (state) {
      return toRunView(state, version);
    }
    const command = await this.commands.findCreate(workspaceId, runId);
    return command ? pendingRun(command) : null;
  }
}
