import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { isTerminalEventType } from '@wrs/domain';
import type { StreamNames } from './names';
import { decodeRunEvent } from './run-event-codec';

interface Waiter {
  readonly deadlineMs: number;
  readonly resolve: (ended: boolean) => void;
}

/** A run somebody waits for: one subscription on its events, shared by its waiters. */
interface WatchedRun {
  readonly subscription: Subscription;
  readonly waiters: Set<Waiter>;
}

export interface RunEndWait {
  /** True once the run's terminal event was seen; false when the time ran out first (or the wait was dropped). */
  readonly ended: Promise<boolean>;
  /** Stops waiting (resolves `ended` with false). */
  drop(): void;
}

/**
 * Tells waiters when a run ends. A core NATS subscription on a run's own subject while somebody waits
 * for it, and one ticker for all deadlines, per process: a process where nobody waits receives no
 * event at all (one subscription on every run's events made each api receive each event of every run:
 * docs/performance.md, "2026-11-27 08:00 UTC"). A subscription hears an event before the stream stores
 * it (and one the stream refuses), and misses one over a reconnect: a heard end is a hint, and waiters
 * look at the run themselves too (the api's RunWaits).
 */
export class RunEndings {
  private readonly watched = new Map<string, WatchedRun>();
  private ticker: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly names: StreamNames,
    private readonly tickMs = 200,
  ) {}

  start(): void {
    this.ticker = setInterval(() => this.expire(Date.now()), this.tickMs);
    this.ticker.unref();
  }

  /**
   * Waits up to `timeoutMs` for the run's terminal event. Register before reading the run's state on
   * the same connection: the subscription then reaches this process's NATS server before the read does.
   */
  wait(workspaceId: string, runId: string, timeoutMs: number): RunEndWait {
    if (this.stopped) {
      // No ticker any more to end it: a wait begun now ends at once, with no subscription.
      return { ended: Promise.resolve(false), drop: () => undefined };
    }
    let waiter!: Waiter;
    const ended = new Promise<boolean>((resolve) => {
      waiter = { deadlineMs: Date.now() + timeoutMs, resolve };
    });
    const subject = this.names.runEvents(workspaceId, runId);
    const run = this.watched.get(subject) ?? this.watch(subject);
    run.waiters.add(waiter);
    return { ended, drop: () => this.settle(subject, waiter, false) };
  }

  /** Waits under way (what tests look at). */
  get waiting(): number {
    let count = 0;
    for (const run of this.watched.values()) {
      count += run.waiters.size;
    }
    return count;
  }

  /** Runs with a subscription of their own: one per run somebody waits for. */
  get subscriptions(): number {
    return this.watched.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.ticker);
    for (const [subject, run] of this.watched) {
      for (const waiter of run.waiters) {
        this.settle(subject, waiter, false);
      }
    }
    await Promise.resolve();
  }

  private watch(subject: string): WatchedRun {
    const subscription = this.nc.subscribe(subject, {
      callback: (error, message) => {
        if (!error) {
          this.onEvent(subject, message.data);
        }
      },
    });
    const run = { subscription, waiters: new Set<Waiter>() };
    this.watched.set(subject, run);
    return run;
  }

  private onEvent(subject: string, data: Uint8Array): void {
    const run = this.watched.get(subject);
    if (!run || !endsRun(data)) {
      return;
    }
    for (const waiter of run.waiters) {
      this.settle(subject, waiter, true);
    }
  }

  private expire(nowMs: number): void {
    for (const [subject, run] of this.watched) {
      for (const waiter of run.waiters) {
        if (waiter.deadlineMs <= nowMs) {
          this.settle(subject, waiter, false);
        }
      }
    }
  }

  private settle(subject: string, waiter: Waiter, ended: boolean): void {
    const run = this.watched.get(subject);
    if (!run?.waiters.delete(waiter)) {
      return;
    }
    if (run.waiters.size === 0) {
      this.watched.delete(subject);
      run.subscription.unsubscribe();
    }
    waiter.resolve(ended);
  }
}

/** Whether a message is a run's end. One that does not decode is not: a throw here would stop the connection's reader. */
function endsRun(data: Uint8Array): boolean {
  try {
    return isTerminalEventType(decodeRunEvent(data).event.type);
  } catch {
    return false;
  }
}
