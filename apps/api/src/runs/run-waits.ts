import { Injectable } from '@nestjs/common';
import type { RunView } from '@wrs/domain';
import { RunEndings } from '@wrs/messaging';
import { UnprojectedRuns } from './unprojected-runs';

/** `Prefer: wait`: answers with a run once it is terminal, or after the time asked for. */
@Injectable()
export class RunWaits {
  constructor(
    private readonly endings: RunEndings,
    private readonly unprojected: UnprojectedRuns,
  ) {}

  /**
   * The run when it is terminal or `seconds` have passed, whichever comes first (or the client went
   * away). Read from its events, not the projection, so a projection that lags cannot hide the end.
   */
  async settled(run: RunView, seconds: number, clientGone: AbortSignal): Promise<RunView> {
    if (run.terminal || seconds === 0) {
      return run;
    }
    // Registered before the read: an ending after the read wakes the wait, one before it shows in the read.
    const wait = this.endings.wait(run.runId, seconds * 1000);
    clientGone.addEventListener('abort', () => wait.drop(), { once: true });
    const current = (await this.unprojected.find(run.workspaceId, run.runId)) ?? run;
    if (current.terminal) {
      wait.drop();
      return current;
    }
    const ended = await wait.ended;
    if (!ended && clientGone.aborted) {
      return current;
    }
    // Ended, or N seconds passed: the run as it is now (a run that did not end may still have moved on).
    return (await this.unprojected.find(run.workspaceId, run.runId)) ?? current;
  }
}
