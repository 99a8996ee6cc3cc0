import { setMaxListeners } from 'node:events';
import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { RunView } from '@wrs/domain';
import { RunEndings, type RunEndWait } from '@wrs/messaging';
import { runWaitsActive } from '@wrs/observability';
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
   * lags cannot hide the end. A read that fails while waiting leaves the run as last read: a wait
   * answers with a run, never with an error.
   */
  async settled(run: RunView, seconds: number, clientGone: AbortSignal): Promise<RunView> {
    if (run.terminal || seconds === 0 || clientGone.aborted || this.stopping.signal.aborted) {
      return run;
    }
    runWaitsActive.inc();
    try {
      return await this.waitedFor(run, seconds, clientGone);
    } finally {
      runWaitsActive.dec();
    }
  }

  private async waitedFor(run: RunView, seconds: number, clientGone: AbortSignal): Promise<RunView> {
    const deadlineMs = Date.now() + seconds * 1000;
    // Registered before the read, on the same connection: the run's subscription reaches this api's NATS
    // server first. An end can still pass both by (see `waited`), so the wait also looks for itself.
    const listening = { wait: this.endings.wait(run.workspaceId, run.runId, seconds * 1000) };
    const drop = (): void => listening.wait.drop();
    clientGone.addEventListener('abort', drop, { once: true });
    this.stopping.signal.addEventListener('abort', drop, { once: true });
    try {
      const current = (await this.read(run, deadlineMs)) ?? run;
      if (current.terminal) {
        return current;
      }
      return await this.waited(run, current, deadlineMs, listening, clientGone);
    } finally {
      listening.wait.drop();
      clientGone.removeEventListener('abort', drop);
      this.stopping.signal.removeEventListener('abort', drop);
    }
  }

  /**
   * A core subscription hears an event as it reaches NATS: before the stream stores it, and also one the
   * stream then refuses (an append that lost a race). And in a cluster a new subscription reaches the
   * publisher's server a moment after this api's. So a heard end is a hint: the wait looks at the run's
   * last stored event, soon and then less often (`HEARD_MS`), and listens again. Unheard, it looks now and
   * then anyway (`LOOKS_MS`), for an end that passed both its first read and its subscription by. A look is
   * one message get; the run is read only once its last event ends it.
   */
  private async waited(
    run: RunView,
    first: RunView,
    deadlineMs: number,
    listening: { wait: RunEndWait },
    clientGone: AbortSignal,
  ): Promise<RunView> {
    let current = first;
    let schedule = LOOKS_MS;
    let look = 0;
    for (;;) {
      const left = deadlineMs - Date.now();
      if (left <= 0) {
        break;
      }
      const ended = await settledWithin(listening.wait.ended, Math.min(schedule[Math.min(look, schedule.length - 1)]!, left));
      if (ended === false || (ended === undefined && Date.now() >= deadlineMs)) {
        break; // the time is up, or the client went away, or the api began to stop
      }
      if (ended === true) {
        if (clientGone.aborted || this.stopping.signal.aborted) {
          break; // their listeners fired for the wait just ended: a new one would not hear them
        }
        try {
          listening.wait = this.endings.wait(run.workspaceId, run.runId, Math.max(1, deadlineMs - Date.now()));
        } catch {
          break; // the connection is closed for good: looking would fail as well
        }
        schedule = HEARD_MS;
        look = 0;
        continue;
      }
      look++;
      if (await this.hasEnded(run, deadlineMs)) {
        current = (await this.read(run, deadlineMs)) ?? current;
        if (current.terminal) {
          return current;
        }
      }
    }
    // The run as it is now (a run that did not end may still have moved on).
    return clientGone.aborted || this.stopping.signal.aborted ? current : ((await this.read(run, deadlineMs)) ?? current);
  }

  /** The run read from its events, or null when the read fails or outlasts the deadline by more than READ_GRACE_MS. */
  private async read(run: RunView, deadlineMs: number): Promise<RunView | null> {
    try {
      return (await settledWithin(this.unprojected.find(run.workspaceId, run.runId), graceAfter(deadlineMs))) ?? null;
    } catch {
      return null;
    }
  }

  private async hasEnded(run: RunView, deadlineMs: number): Promise<boolean> {
    try {
      return (await settledWithin(this.unprojected.hasEnded(run.workspaceId, run.runId), graceAfter(deadlineMs))) ?? false;
    } catch {
      return false;
    }
  }
}

/** How long past its deadline a wait lets a read go on (one that hangs, say on a run deleted meanwhile, is left behind). */
const READ_GRACE_MS = 2_000;

function graceAfter(deadlineMs: number): number {
  return Math.max(0, deadlineMs - Date.now()) + READ_GRACE_MS;
}

/** When a wait that heard nothing looks at its run: after 0.25 s, 1 s and 3 s, then every 5 s. */
const LOOKS_MS = [250, 750, 2_000, 5_000];

/** When a wait that heard its run end looks, for the stream to show it (or not: then every 5 s). */
const HEARD_MS = [0, 50, 100, 200, 400, 800, 5_000];

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
