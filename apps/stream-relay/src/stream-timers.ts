/**
 * One timer writes a heartbeat to every open stream of this relay, where each stream had an interval
 * of its own: an idle stream is then an entry in a set. A stream gets its first heartbeat within one
 * interval of opening (the next tick), not exactly one interval after.
 */
export class Heartbeats<S extends { heartbeat(): void }> {
  private readonly streams = new Set<S>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly everyMs: number) {}

  /** How many streams the timer writes to. */
  get size(): number {
    return this.streams.size;
  }

  /** Whether the timer runs (only while some stream is open). */
  get ticking(): boolean {
    return this.timer !== undefined;
  }

  add(stream: S): void {
    this.streams.add(stream);
    this.timer ??= setInterval(() => this.beat(), this.everyMs);
  }

  delete(stream: S): void {
    this.streams.delete(stream);
    if (this.streams.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private beat(): void {
    for (const stream of this.streams) {
      try {
        stream.heartbeat();
      } catch {
        // One stream's failed write must not cost the others their heartbeat; its own close removes it.
      }
    }
  }
}

/**
 * Ends streams at their maximum duration with one timer for all of them. Every stream gets the same
 * duration, so the order streams open in is the order they fall due: a Map keeps that order, and the
 * one timer is set for its first entry.
 */
export class Deadlines<S extends { close(): unknown }> {
  private readonly due = new Map<S, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly afterMs: number) {}

  /** How many streams wait for their deadline. */
  get size(): number {
    return this.due.size;
  }

  add(stream: S): void {
    this.due.set(stream, performance.now() + this.afterMs);
    if (this.timer === undefined) {
      this.arm();
    }
  }

  delete(stream: S): void {
    this.due.delete(stream);
    if (this.due.size === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private arm(): void {
    const first = this.due.values().next();
    this.timer = first.done ? undefined : setTimeout(() => this.fire(), Math.max(0, first.value - performance.now()));
  }

  private fire(): void {
    // The monotonic clock: a wall-clock step (NTP, a resumed VM) must not end streams early or late.
    const now = performance.now();
    for (const [stream, at] of this.due) {
      if (at > now) {
        break;
      }
      this.due.delete(stream);
      void stream.close();
    }
    this.arm();
  }
}
