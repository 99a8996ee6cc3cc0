import { setMaxListeners } from 'node:events';
import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { RunView } from '@wrs/domain';
import { RunEndings, type RunEndWait } from '@wrs/messaging';
import { UnprojectedRuns } from './unprojected-runs';

/**
 * `Prefer: wait`: answers with a run once it is terminal, or after the time asked for. When the api
 * begins to stop, every wait answers at once with the run as it is (and new ones do not wait), rather
 * than being cut with its connection at the end of the close grace.
 */
@Injectable()
export class RunWaits implements BeforeApplicationShutdown {
  private readonly stopping = stoppingSignal();

  constructor(
    private readonly endings: RunEndings,
    private readonly unprojected: UnprojectedRuns,
  ) {}

  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  /**
   * The run when it is terminal or `seconds` have passed, whichever comes first (or the client went
   * away, or the api began to stop). Read from its events, not the projection, so a projection that
   * lags cannot hide the end.
   */
  async settled(run: RunView, seconds: number, clientGone: AbortSignal): Promise<RunView> {
    if (run.terminal || seconds === 0 || this.stopping.signal.aborted) {
      return run;
    }
    // Registered before the read: an ending after the read wakes the wait, one before it shows in the read.
    const wait = this.endings.wait(run.workspaceId, run.runId, seconds * 1000);
    const drop = (): void => wait.drop();
    clientGone.addEventListener('abort', drop, { once: true });
    this.stopping.signal.addEventListener('abort', drop, { once: true });
    try {
      return await this.waited(run, wait, clientGone);
    } finally {
      this.stopping.signal.removeEventListener('abort', drop);
    }
  }

  private async waited(run: RunView, wait: RunEndWait, clientGone: AbortSignal): Promise<RunView> {
    const current = (await this.unprojected.find(run.workspaceId, run.runId)) ?? run;
    if (current.terminal) {
      wait.drop();
      return current;
    }
    // The run's subscription reached the server before the read, but an ending published just before it
    // may still have been on its way into the stream when the read was answered: in neither. One more
    // read a moment later finds it, unless the wait has settled by then.
    const early = await settledWithin(wait.ended, READ_AGAIN_AFTER_MS);
    if (early === undefined) {
      const again = await this.unprojected.find(run.workspaceId, run.runId);
      if (again?.terminal) {
        wait.drop();
        return again;
      }
    }
    const ended = early ?? (await wait.ended);
    if (!ended && clientGone.aborted) {
      return current;
    }
    // Ended, or N seconds passed: the run as it is now (a run that did not end may still have moved on).
    return (await this.unprojected.find(run.workspaceId, run.runId)) ?? current;
  }
}

/** How long after its first read a waited run is read once more (see `waited`). */
export const READ_AGAIN_AFTER_MS = 250;

/** The promise's value if it settles within `ms`, else undefined (the timer is cleared either way). */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** One listener per wait under way: many at once are expected, not a leak (each is removed when its wait ends). */
function stoppingSignal(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
