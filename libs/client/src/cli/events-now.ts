import type { WrsClient } from '../client';
import type { FollowItem, SkippedItem } from '../follow';
import type { Run } from '../types';
import { EXIT, type ExitCode } from './exit-codes';
import type { CliIo } from './io';
import { itemJson } from './render';
import { visible } from './visible';

/**
 * `wrs runs events <id>` without --follow: the events the run has when it is read, then exit 0. The run's
 * `version` is its last state-changing event only; the log lines after it are known by `logLines` and
 * their `index`. So the stream is read from the start (skipping what --after already showed, as the
 * last log line may lie before it) until both are passed, never waiting for an event the run had not.
 * `after` is an event id: parseInvocation refuses any other --after before any request.
 */
export async function showEventsNow(client: WrsClient, io: CliIo, runId: string, json: boolean, after?: string): Promise<ExitCode> {
  const run = (await client.getRun(runId)).value;
  const now = new EventsNow(run, after === undefined ? 0 : Number(after));
  if (now.done) {
    return EXIT.ok;
  }
  // Events of types this client does not know are reported too: the run's version may be one of them.
  for await (const item of client.follow(runId, { reportSkipped: true })) {
    const seen = now.see(item);
    if (seen === 'newer') {
      break;
    }
    if (seen === 'show' && item.kind !== 'skipped') {
      io.out(json ? itemJson(item) : eventLine(item));
    }
    if (now.done) {
      break;
    }
  }
  return EXIT.ok;
}

function eventLine(item: FollowItem): string {
  // JSON.stringify writes out C0 controls but not C1 ones (a CSI is one byte there).
  return visible(
    item.kind === 'event'
      ? `${item.id}  ${item.event.type}  ${JSON.stringify(item.event.data)}`
      : `${item.id}  reset  ${JSON.stringify(item.reset.data)}`,
  );
}

/**
 * Where the run as read ends in its event stream: its state-changing events up to `version`, and its
 * log lines (numbered from 0, in stream order) up to `logLines`. Anything past both came later.
 */
export class EventsNow {
  private versionPassed: boolean;
  private lastLogIndex = -1;
  private nothingHeld = false;

  constructor(
    private readonly run: Pick<Run, 'version' | 'logLines'>,
    /** Events up to this id were shown before (--after): they are read, for where the log lines are, not shown. */
    private readonly after: number,
  ) {
    // With no log line, nothing lies past `version`: an --after there has none, nor has a run at version 0.
    this.versionPassed = run.version === 0 || (run.logLines === 0 && after >= run.version);
  }

  /** True once every event the run had when read has been seen. */
  get done(): boolean {
    return this.nothingHeld || (this.versionPassed && this.lastLogIndex >= this.run.logLines - 1);
  }

  /**
   * `show` it, `skip` it (at or before --after, or of a type this client does not know), or stop at it:
   * `newer` than the run as read.
   */
  see(item: FollowItem | SkippedItem): 'show' | 'skip' | 'newer' {
    const id = Number(item.id);
    if (item.kind === 'skipped') {
      // Not shown; it may be the event at `version`. Whether it changed the run's state is unknown, so
      // one past `version` is no sign of the end: a log line the run had may follow it.
      this.versionPassed ||= id >= this.run.version;
      return 'skip';
    }
    if (item.kind === 'reset') {
      // Events were removed (retention): those up to its id, or all of them, and then the reset is all there is.
      this.nothingHeld = item.reset.data.firstAvailableId === null;
      if (this.nothingHeld) {
        return 'show';
      }
    } else if (item.event.type === 'run.log') {
      if (item.event.data.index >= this.run.logLines) {
        return 'newer';
      }
      this.lastLogIndex = Math.max(this.lastLogIndex, item.event.data.index);
    } else if (id > this.run.version) {
      return 'newer';
    }
    this.versionPassed ||= id >= this.run.version;
    // Written so that an id that is no number (a broken relay) is shown rather than dropped.
    return id <= this.after ? 'skip' : 'show';
  }
}
