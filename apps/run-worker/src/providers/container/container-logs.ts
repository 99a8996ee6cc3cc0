import { LOG_LIMITS, type RunView } from '@wrs/domain';
import type { LogLine } from '../provider';
import { phaseOfStatus } from './container-status';
import { LogFollower, type FollowStream } from './log-follower';

export interface LogSettings {
  /** Lines a run's follower keeps unread before it pauses its stream (the engine then waits too). */
  readonly maxUnread: number;
  /** A run's log not read for this long is let go: its run ended elsewhere, or is no longer observed here. */
  readonly idleMs: number;
}

/**
 * No more lines are kept than a run records; a log not read for longer than the reconciler's longest gap
 * between looks (RECONCILE_MAX_INTERVAL_MS, at most 600 s) would be opened and replayed at every look.
 */
export const DEFAULT_LOG_SETTINGS: LogSettings = { maxUnread: LOG_LIMITS.maxLinesPerRun, idleMs: 660_000 };

/** What the logs need of an inspect of the run's container. */
export interface ContainerSeen {
  /** The engine's word: created, running, exited, ... */
  readonly status: string;
  /** The pull's line, the log's first (from the container's label). */
  readonly pullLine: string | undefined;
}

/** The engine calls the logs make, for the run's container; each answers undefined when the container is gone. */
export interface LogSource {
  inspect(run: RunView): Promise<ContainerSeen | undefined>;
  follow(run: RunView, signal: AbortSignal): Promise<FollowStream | undefined>;
  /** The first `count` lines of the container's log (not followed), or undefined when the container is gone. */
  readHead(run: RunView, count: number): Promise<LogLine[] | undefined>;
}

interface Following {
  readonly kind: 'following';
  readonly follower: LogFollower;
  readonly firstLines: readonly LogLine[];
  /** Lines that arrived before this (performance.now()) were read while the container still ran (an inspect sent then said so). */
  runningAtMs: number;
  /** Known to have exited: the rest comes from one read of the log's head (the lines a run records). */
  exited: boolean;
  readonly idle: NodeJS.Timeout;
}

interface Finished {
  readonly kind: 'finished';
  /** The exited container's log (its head) from `base` on: it no longer changes. */
  lines: LogLine[];
  base: number;
  readonly idle: NodeJS.Timeout;
}

/**
 * The runs' container logs. While a container runs, one follow stream per run brings its lines, so a
 * read asks nothing of the engine: O(new lines), not O(its whole output). Once it exited, the head of
 * its log (the lines a run records) is read once. `changed(runId)` is told when a run's stream brings lines or ends.
 *
 * A follow is trusted only for what came while the container still ran: Podman 4.3 cuts short, or
 * garbles, a follow that lags behind when the container exits (its reader drops lines after the
 * exit; measured with 40,000 lines), so lines are handed out only up to the last time an inspect
 * found the container running, and the end always comes from a read after the exit.
 */
export class ContainerLogs {
  private readonly logs = new Map<string, Following | Finished>();

  constructor(
    private readonly source: LogSource,
    private readonly settings: LogSettings,
    private readonly changed: (runId: string) => void,
  ) {}

  /** An inspect sent at `sentAtMs` (performance.now()) found the run's container in `status` (the provider's observe). */
  seen(runId: string, status: string, sentAtMs: number): void {
    const log = this.logs.get(runId);
    if (log?.kind !== 'following') {
      return;
    }
    const phase = phaseOfStatus(status);
    if (phase === 'exited') {
      log.exited = true;
    } else if (phase === 'running') {
      log.runningAtMs = Math.max(log.runningAtMs, sentAtMs);
    }
  }

  /**
   * Log lines from `fromIndex` on (numbered from 0 over stdout and stderr together, after the pull's
   * line), up to the most a run records: past it there is nothing to read (the engine is not asked).
   */
  async lines(run: RunView, fromIndex: number): Promise<LogLine[]> {
    if (fromIndex >= LOG_LIMITS.maxLinesPerRun) {
      this.close(run.runId);
      return [];
    }
    const lines = await this.linesFrom(run, fromIndex);
    return lines.slice(0, LOG_LIMITS.maxLinesPerRun - fromIndex);
  }

  private async linesFrom(run: RunView, fromIndex: number): Promise<LogLine[]> {
    let log = this.usable(run.runId, fromIndex);
    if (log?.kind === 'finished') {
      return this.fromFinished(log, fromIndex);
    }
    if (log !== undefined && log.follower.state === 'ended' && !log.exited) {
      // The stream ended before an observe saw the exit: the exit (or a removal) ended it, or the
      // engine did early, and then the container is followed anew.
      const seen = await this.source.inspect(run);
      if (seen !== undefined && phaseOfStatus(seen.status) !== 'exited') {
        this.close(run.runId);
        log = undefined;
      } else {
        log.exited = true;
      }
    }
    if (log?.exited) {
      this.close(run.runId);
      return this.finish(run, fromIndex, log.firstLines);
    }
    if (log === undefined) {
      const sentAtMs = performance.now();
      const seen = await this.source.inspect(run);
      if (seen === undefined) {
        return [];
      }
      const phase = phaseOfStatus(seen.status);
      if (phase === 'exited') {
        return this.finish(run, fromIndex, firstLinesOf(seen));
      }
      if (phase === 'unstarted') {
        // Podman ends a follow of an unstarted container at once, with nothing: it is followed once it runs.
        return firstLinesOf(seen).slice(fromIndex);
      }
      const other = this.logs.get(run.runId);
      log = other?.kind === 'following' ? other : this.follow(run, firstLinesOf(seen), fromIndex, sentAtMs);
    }
    log.idle.refresh();
    const refused = log.follower.refusal;
    if (refused !== undefined) {
      // Said once, so the reconciler counts the engine's refusal; the next read opens the follow again.
      this.close(run.runId);
      throw refused;
    }
    return log.follower.read(fromIndex, log.runningAtMs) ?? [];
  }

  /** Lets the run's log go (its follow stream closed), if it has one. */
  close(runId: string): void {
    const log = this.logs.get(runId);
    if (log) {
      this.logs.delete(runId);
      clearTimeout(log.idle);
      if (log.kind === 'following') {
        log.follower.close();
      }
    }
  }

  /** The run's log if it can answer from `fromIndex`: one that let those lines go, or whose stream failed, is let go. */
  private usable(runId: string, fromIndex: number): Following | Finished | undefined {
    const log = this.logs.get(runId);
    if (log === undefined) {
      return undefined;
    }
    const failed = log.kind === 'following' && log.follower.state === 'failed' && log.follower.refusal === undefined;
    const usable = log.kind === 'finished' ? fromIndex >= log.base : !failed && log.follower.has(fromIndex);
    if (!usable) {
      this.close(runId);
      return undefined;
    }
    return log;
  }

  /**
   * A follower of the run's running container, not waited for: Podman answers a follow only once the
   * container writes its first byte, so a workload silent for minutes must not hold a look (or fail it
   * after the engine's call bound). Its lines come when they come; a refusal is said by the next read.
   */
  private follow(run: RunView, firstLines: LogLine[], fromIndex: number, runningAtMs: number): Following {
    const follower = new LogFollower((signal) => this.source.follow(run, signal), {
      firstLines,
      from: fromIndex,
      keepBelow: LOG_LIMITS.maxLinesPerRun,
      maxUnread: this.settings.maxUnread,
      onChange: () => this.changed(run.runId),
    });
    const log: Following = { kind: 'following', follower, firstLines, runningAtMs, exited: false, idle: this.idleTimer(run.runId) };
    this.logs.set(run.runId, log);
    return log;
  }

  /** The exited container's lines from `fromIndex` on, from one read of its log's head, kept until released. */
  private async finish(run: RunView, fromIndex: number, firstLines: readonly LogLine[]): Promise<LogLine[]> {
    const head = await this.source.readHead(run, LOG_LIMITS.maxLinesPerRun - firstLines.length);
    if (head === undefined) {
      return [];
    }
    const lines = [...firstLines, ...head].slice(fromIndex, LOG_LIMITS.maxLinesPerRun);
    this.close(run.runId);
    this.logs.set(run.runId, { kind: 'finished', lines, base: fromIndex, idle: this.idleTimer(run.runId) });
    return lines;
  }

  private fromFinished(log: Finished, fromIndex: number): LogLine[] {
    log.idle.refresh();
    log.lines = log.lines.slice(fromIndex - log.base);
    log.base = fromIndex;
    return log.lines.slice();
  }

  private idleTimer(runId: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (this.logs.get(runId)?.idle === timer) {
        this.close(runId);
      }
    }, this.settings.idleMs);
    // Only a cache expires here: nothing to keep the process alive for.
    timer.unref();
    return timer;
  }
}

function firstLinesOf(seen: ContainerSeen): LogLine[] {
  return seen.pullLine ? [{ stream: 'stderr', line: seen.pullLine }] : [];
}
