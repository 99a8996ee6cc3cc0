import type { LogLine } from '../provider';
import { LogDemultiplexer } from './log-frames';

/** The engine's answer to a follow of a container's logs (dockerode hands back the HTTP response). */
export type FollowStream = NodeJS.ReadableStream & { destroy(): void; socket?: { unref(): void } | null };

/** Opens the follow stream; undefined when the container is gone. Aborting `signal` abandons the opening. */
export type OpenFollow = (signal: AbortSignal) => Promise<FollowStream | undefined>;

export type FollowerState = 'opening' | 'open' | 'ended' | 'failed' | 'closed';

export interface FollowerOptions {
  /** Lines that come before the container's own (the pull's line), numbered from 0. */
  readonly firstLines: readonly LogLine[];
  /** Lines below this index are not kept: they are recorded already (the worker restarted). */
  readonly from: number;
  /** Lines from this index on are not kept (a run records no more): the stream is paused once they come. */
  readonly keepBelow: number;
  /** Kept lines past which the stream is paused, until a read lets them go. */
  readonly maxUnread: number;
  /** Called once for each chunk that completes lines, and at the stream's end. */
  readonly onChange: () => void;
}

/**
 * One running container's log, followed as the engine writes it: lines are numbered from 0 over
 * stdout and stderr together (after the first lines), kept from the lowest index a read asked for
 * on, each with the time it arrived.
 */
export class LogFollower {
  private readonly demultiplexer = new LogDemultiplexer();
  private readonly closing = new AbortController();
  private kept: LogLine[] = [];
  /** The index of kept[0]; above `received` while lines a read skipped are still to arrive. */
  private base: number;
  private received: number;
  /** For each chunk that brought lines: when it came, and how many lines had come with it. */
  private arrivals: { atMs: number; received: number }[] = [];
  private stream: FollowStream | undefined;
  private current: FollowerState = 'opening';
  private paused = false;
  /** The engine's refusal to open the follow, once it refused. */
  private refused: unknown;

  constructor(
    open: OpenFollow,
    private readonly options: FollowerOptions,
  ) {
    this.base = options.from;
    this.kept = options.firstLines.slice(options.from);
    this.received = options.firstLines.length;
    open(this.closing.signal).then(
      (stream) => this.attach(stream),
      (refused: unknown) => {
        // Closed meanwhile: the abort's rejection is no refusal.
        if (this.current === 'opening') {
          this.refused = refused ?? new Error('the engine refused to follow the logs');
          this.stop('failed');
        }
      },
    );
  }

  get state(): FollowerState {
    return this.current;
  }

  /** The engine's refusal to open the follow (an answer other than the stream or a 404), if it refused. */
  get refusal(): unknown {
    return this.refused;
  }

  /** Whether lines from `fromIndex` on are all still here (or yet to come). */
  has(fromIndex: number): boolean {
    return fromIndex >= this.base;
  }

  /**
   * The lines from `fromIndex` on that arrived before `beforeMs` (performance.now(); the first lines always count);
   * those below `fromIndex` are let go (the caller has recorded them). Undefined when lines from
   * `fromIndex` were let go already.
   */
  read(fromIndex: number, beforeMs: number): LogLine[] | undefined {
    if (!this.has(fromIndex)) {
      return undefined;
    }
    const drop = fromIndex - this.base;
    if (drop > 0) {
      this.kept = drop >= this.kept.length ? [] : this.kept.slice(drop);
      this.base = fromIndex;
      const stillNeeded = this.arrivals.findIndex((arrival) => arrival.received > this.base);
      this.arrivals = stillNeeded < 0 ? [] : this.arrivals.slice(stillNeeded);
    }
    this.applyBackpressure();
    return this.kept.slice(0, Math.max(0, this.receivedBefore(beforeMs) - this.base));
  }

  /** Abandons the stream (or its opening); nothing of it stays open. */
  close(): void {
    this.stop('closed');
    this.closing.abort();
    this.stream?.destroy();
  }

  /** How many lines (counted from 0) had arrived before `beforeMs`. */
  private receivedBefore(beforeMs: number): number {
    let count = this.options.firstLines.length;
    for (const arrival of this.arrivals) {
      if (arrival.atMs >= beforeMs) {
        break;
      }
      count = arrival.received;
    }
    return count;
  }

  private attach(stream: FollowStream | undefined): void {
    if (this.current === 'closed') {
      stream?.destroy();
      return;
    }
    if (stream === undefined) {
      this.stop('failed');
      return;
    }
    this.stream = stream;
    this.current = 'open';
    // A follow is a cache of what the engine keeps: it must not keep the worker's process alive.
    stream.socket?.unref();
    stream.on('data', (chunk: Buffer) => this.take(chunk));
    stream.on('end', () => this.stop('ended'));
    // Listeners stay after the end: an error of a destroyed stream must still find one.
    stream.on('error', () => this.stop('failed'));
    stream.on('close', () => this.stop('failed'));
    this.applyBackpressure();
  }

  private take(chunk: Buffer): void {
    const lines = this.demultiplexer.push(chunk);
    if (lines.length === 0) {
      return;
    }
    for (const line of lines) {
      if (this.received >= this.base && this.received < this.options.keepBelow) {
        this.kept.push(line);
      }
      this.received++;
    }
    // A monotonic clock: the order of arrivals and inspects must not follow a step of the wall clock.
    this.arrivals.push({ atMs: performance.now(), received: this.received });
    this.applyBackpressure();
    this.options.onChange();
  }

  private applyBackpressure(): void {
    // Past the lines a run records, nothing more is needed while it runs; its end is read whole.
    const full = this.kept.length >= this.options.maxUnread || this.received >= this.options.keepBelow;
    if (this.stream !== undefined && full !== this.paused) {
      this.paused = full;
      if (full) {
        this.stream.pause();
      } else {
        this.stream.resume();
      }
    }
  }

  /** Only the first outcome counts: a stream's 'close' follows its 'end', and a closed one may still error. */
  private stop(outcome: 'ended' | 'failed' | 'closed'): void {
    if (this.current !== 'opening' && this.current !== 'open') {
      return;
    }
    this.current = outcome;
    // Not for a failure: telling of it would have the stream opened again at once, in a loop while the engine fails.
    if (outcome === 'ended') {
      this.options.onChange();
    }
  }
}
