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
    if (run.terminal || seconds === 0 || clientGone.aborted || this.stopping.signal.aborted) {
      return run;
    }
    // Registered before the read, on the same connection: the run's subscription reaches this api's NATS
    // server first. Its end can still pass both by (see `waited`), so the wait also looks for itself.
    const wait = this.endings.wait(run.workspaceId, run.runId, seconds * 1000);
    const drop = (): void => wait.drop();
    clientGone.addEventListener('abort', drop, { once: true });
    this.stopping.signal.addEventListener('abort', drop, { once: true });
    try {
      return await this.waited(run, wait, clientGone);
    } finally {
      wait.drop();
      clientGone.removeEventListener('abort', drop);
      this.stopping.signal.removeEventListener('abort', drop);
    }
  }

  /**
   * A core subscription hears an event as it reaches NATS, before the stream stores it, and only once the
   * subscription has reached the publisher's server (in a cluster, a moment after this api's). So an end
   * published just before the subscription, or stored after a read, can pass both the read and the
   * subscription by: the wait looks at the run's last sequence itself now and then (`LOOKS_MS`), and
   * reads the run when it moved. Woken by the end, it reads until the stream shows it.
   */
  private async waited(run: RunView, wait: RunEndWait, clientGone: AbortSignal): Promise<RunView> {
    let current = (await this.unprojected.find(run.workspaceId, run.runId)) ?? run;
    if (current.terminal) {
      return current;
    }
    for (let look = 0; ; look++) {
      const ended = await settledWithin(wait.ended, LOOKS_MS[Math.min(look, LOOKS_MS.length - 1)]!);
      if (ended === false) {
        // N seconds passed, or the client went away, or the api began to stop.
        return clientGone.aborted ? current : ((await this.unprojected.find(run.workspaceId, run.runId)) ?? current);
      }
      if (ended === true) {
        return this.onceStored(run, current);
      }
      current = await this.readIfMoved(run, current);
      if (current.terminal) {
        return current;
      }
    }
  }

  /** The run read again if its last sequence moved; a failed look leaves the wait as it was. */
  private async readIfMoved(run: RunView, current: RunView): Promise<RunView> {
    try {
      if ((await this.unprojected.lastSequence(run.workspaceId, run.runId)) === current.version) {
        return current;
      }
      return (await this.unprojected.find(run.workspaceId, run.runId)) ?? current;
    } catch {
      return current;
    }
  }

  /** Woken by the run's end: read until the stream has stored it (briefly; then the run as it is). */
  private async onceStored(run: RunView, current: RunView): Promise<RunView> {
    let latest = current;
    for (const pauseMs of STORED_PAUSES_MS) {
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      latest = (await this.unprojected.find(run.workspaceId, run.runId)) ?? latest;
      if (latest.terminal) {
        break;
      }
    }
    return latest;
  }
}

/** When a wait looks at its run itself: after 0.25 s, 1 s and 3 s, then every 5 s. */
const LOOKS_MS = [250, 750, 2_000, 5_000];

/** Between reads of a run whose end was heard before the stream stored it. */
const STORED_PAUSES_MS = [0, 50, 100, 200, 400, 800];

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
