import { timeoutOf, type RunView } from '@wrs/domain';

/** What a sweep knows of a run before reading it: enough to tell whether it is due. */
export interface RunRef {
  readonly runId: string;
  readonly state: RunView['state'];
}

interface NextLook {
  /** When the run is next due, in ms since the epoch. */
  readonly atMs: number;
  /** The gap that led here: doubled after each look that changed nothing. */
  readonly gapMs: number;
}

/**
 * When each starting or running run is next observed. A look that changed nothing doubles the gap to the
 * next one, up to `maxMs`; a change, a wake from the provider or a poke from the projection brings it
 * back to `baseMs`. Without it, every unfinished run cost its provider a call (a container inspect and a
 * log read) every sweep, however long it ran quietly. Queued and canceling runs are always due; a run's
 * deadline or time limit is a look of its own, whatever the gap. Lost on restart: a restarted worker
 * looks at every run once.
 */
export class ObserveSchedule {
  private readonly next = new Map<string, NextLook>();
  /** Sooner looks asked for while a look may be under way (a wake, a provider's hint): the next `looked` keeps them. */
  private readonly asked = new Map<string, number>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  due(run: RunRef, nowMs: number): boolean {
    if (run.state !== 'starting' && run.state !== 'running') {
      return true;
    }
    const look = this.next.get(run.runId);
    return look === undefined || nowMs >= look.atMs;
  }

  /**
   * Up to `limit` runs whose next look is due by `nowMs`, but those `busy` says are being looked at (a
   * slow drive must not take a slot from another run). A scan of the schedule, bounded by its size.
   */
  dueBy(nowMs: number, limit: number, busy: (runId: string) => boolean = () => false): string[] {
    const due: string[] = [];
    for (const [runId, look] of this.next) {
      if (due.length >= limit) {
        break;
      }
      if (look.atMs <= nowMs && !busy(runId)) {
        due.push(runId);
      }
    }
    return due;
  }

  /** A look begins: what was asked before it is answered by it. */
  looking(runId: string): void {
    this.asked.delete(runId);
  }

  /** After a look at `run` (as read before it): `changed` when it moved the run (a state, log lines). */
  looked(run: RunView, changed: boolean, nowMs: number): void {
    const { runId } = run;
    const previous = this.next.get(runId);
    const askedAtMs = this.asked.get(runId);
    this.asked.delete(runId);
    const woken = askedAtMs === WOKEN;
    const gapMs = changed || woken || previous === undefined ? this.baseMs : Math.min(previous.gapMs * 2, this.maxMs);
    this.remember(runId, { atMs: Math.min(nowMs + gapMs, askedAtMs ?? Infinity, limitOf(run)), gapMs });
  }

  /** The provider says when the workload next changes (a simulated end): looked at then, if sooner. */
  lookAt(runId: string, atMs: number): void {
    const look = this.next.get(runId);
    if (look !== undefined && atMs < look.atMs) {
      this.next.set(runId, { atMs, gapMs: look.gapMs });
    }
    this.ask(runId, atMs);
  }

  /** Due at once, with the shortest gap again: something changed (also when a look is under way). */
  wake(runId: string): void {
    this.next.delete(runId);
    this.ask(runId, WOKEN);
  }

  forget(runId: string): void {
    this.next.delete(runId);
    this.asked.delete(runId);
  }

  private ask(runId: string, atMs: number): void {
    if (this.asked.size >= MAX_SCHEDULED_RUNS) {
      this.asked.clear(); // forgetting a hint only costs a later look
    }
    this.asked.set(runId, Math.min(atMs, this.asked.get(runId) ?? Infinity));
  }

  private remember(runId: string, look: NextLook): void {
    if (this.next.size >= MAX_SCHEDULED_RUNS && !this.next.has(runId)) {
      this.next.clear(); // forgetting only costs one early look per run
    }
    this.next.set(runId, look);
  }
}

/** When the run meets its deadline or its time limit (once started): a look is due then. */
function limitOf(run: RunView): number {
  const deadlineMs = run.deadline ? Date.parse(run.deadline) : Infinity;
  const limitMs = run.startedAt ? Date.parse(run.startedAt) + timeoutOf(run.workload) * 1000 + 1 : Infinity;
  return Math.min(deadlineMs, limitMs);
}

/** An ask for a look at once: earlier than any time. */
const WOKEN = 0;

/** Bounds the memory of the schedule. */
const MAX_SCHEDULED_RUNS = 100_000;
