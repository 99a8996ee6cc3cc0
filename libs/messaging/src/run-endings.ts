import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { isTerminalEventType } from '@wrs/domain';
import { parseRunEventsSubject, type StreamNames } from './names';
import { decodeRunEvent } from './run-event-codec';

interface Waiter {
  readonly deadlineMs: number;
  readonly resolve: (ended: boolean) => void;
}

export interface RunEndWait {
  /** True once the run's terminal event was seen; false when the time ran out first (or the wait was dropped). */
  readonly ended: Promise<boolean>;
  /** Stops waiting (resolves `ended` with false). */
  drop(): void;
}

/**
 * Tells waiters when a run ends. One core NATS subscription on every run's events, and one ticker for
 * all deadlines, per process: a waiting request costs no consumer, timer or database poll. An event
 * missed over a reconnect only makes its waiters wait their full time.
 */
export class RunEndings {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private subscription: Subscription | undefined;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly names: StreamNames,
    private readonly tickMs = 200,
  ) {}

  start(): void {
    this.subscription = this.nc.subscribe(this.names.allRunEvents(), {
      callback: (error, message) => {
        if (!error) {
          this.onEvent(message.subject, message.data);
        }
      },
    });
    this.ticker = setInterval(() => this.expire(Date.now()), this.tickMs);
    this.ticker.unref();
  }

  /** Waits up to `timeoutMs` for the run's terminal event. Register before reading the run's state, so no ending falls in between. */
  wait(runId: string, timeoutMs: number): RunEndWait {
    let waiter!: Waiter;
    const ended = new Promise<boolean>((resolve) => {
      waiter = { deadlineMs: Date.now() + timeoutMs, resolve };
    });
    const set = this.waiters.get(runId) ?? new Set<Waiter>();
    set.add(waiter);
    this.waiters.set(runId, set);
    return { ended, drop: () => this.settle(runId, waiter, false) };
  }

  /** Runs somebody is waiting for (a gauge for operators, and what tests look at). */
  get waiting(): number {
    let count = 0;
    for (const set of this.waiters.values()) {
      count += set.size;
    }
    return count;
  }

  async stop(): Promise<void> {
    clearInterval(this.ticker);
    this.subscription?.unsubscribe();
    for (const [runId, set] of this.waiters) {
      for (const waiter of set) {
        this.settle(runId, waiter, false);
      }
    }
    await Promise.resolve();
  }

  private onEvent(subject: string, data: Uint8Array): void {
    const ids = parseRunEventsSubject(subject);
    const set = ids && this.waiters.get(ids.runId);
    // Decoded only when somebody waits for the run: most events pass by unread.
    if (!ids || !set || !isTerminalEventType(decodeRunEvent(data).event.type)) {
      return;
    }
    for (const waiter of set) {
      this.settle(ids.runId, waiter, true);
    }
  }

  private expire(nowMs: number): void {
    for (const [runId, set] of this.waiters) {
      for (const waiter of set) {
        if (waiter.deadlineMs <= nowMs) {
          this.settle(runId, waiter, false);
        }
      }
    }
  }

  private settle(runId: string, waiter: Waiter, ended: boolean): void {
    const set = this.waiters.get(runId);
    if (!set?.delete(waiter)) {
      return;
    }
    if (set.size === 0) {
      this.waiters.delete(runId);
    }
    waiter.resolve(ended);
  }
}
