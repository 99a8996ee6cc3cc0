import type { WrsClient } from '../client';
import type { FollowItem } from '../follow';
import { stateAfter, type RunState } from '../types';
import { isEventId } from './event-id';
import { EXIT, type ExitCode } from './exit-codes';
import type { CliIo } from './io';
import { describeEvent, itemJson } from './render';
import { visible } from './visible';

/**
 * Follows a run: log lines on stdout, state changes on stderr, and a live status line on a terminal
 * (--json prints each event as a JSON line). Returns the exit code the run's end calls for.
 */
export async function followAndShow(
  client: WrsClient,
  io: CliIo,
  runId: string,
  json: boolean,
  options: FollowShowOptions = {},
): Promise<ExitCode> {
  const { after } = options;
  /** The id a resume starts after: the last one seen, else the one following began after. */
  let lastId = after;
  const started = io.now();
  let state: RunState | 'unknown' = 'unknown';
  /** The workload's own exit code, from the terminal event (null: it never exited, e.g. no image). */
  let workloadExit: number | null = null;
  const elapsed = (): string => `${((io.now() - started) / 1000).toFixed(1)}s`;
  const ticker = io.interactive && !json ? setInterval(() => io.status(visible(`${state}  ${elapsed()}  run ${runId}`)), 250) : undefined;
  const interrupt = new AbortController();
  const onSigint = (): void => interrupt.abort(new Error('interrupted'));
  process.once('SIGINT', onSigint);
  try {
    for await (const item of client.follow(runId, { signal: interrupt.signal, ...(after ? { lastEventId: after } : {}) })) {
      state = nextState(item, state);
      lastId = item.id;
      workloadExit = exitOf(item) ?? workloadExit;
      if (json) {
        io.out(itemJson(item));
        continue;
      }
      if (item.kind === 'reset') {
        io.err(visible(`[${elapsed()}] events were removed on the server; the run is ${state} (resuming after ${item.id})`));
      } else if (item.event.type === 'run.log') {
        // The workload's bytes: shown, never acted on by the terminal.
        io.out(visible(item.event.data.line));
      } else {
        // An event type this client does not describe comes from the event's JSON, as sent.
        io.err(`[${elapsed()}] ${describeEvent(item.event) ?? visible(item.event.type)}`);
      }
    }
  } catch (error) {
    const resume = resumeCommand(runId, lastId, json, options.workloadExitCode === true);
    if (interrupt.signal.aborted) {
      io.err(visible(`stopped following; run ${runId} goes on (state ${state}).${resume ? ` Resume: ${resume}` : ''}`));
      return EXIT.interrupted;
    }
    if (lastId && resume && !json) {
      // An expired token or a lost network ends following too: a resume then skips what was already shown.
      io.err(`following stopped after event ${lastId} (the error follows). Resume: ${resume}`);
    }
    throw error;
  } finally {
    clearInterval(ticker);
    io.status('');
    process.removeListener('SIGINT', onSigint);
  }
  if (state !== 'succeeded' && state !== 'failed' && state !== 'canceled') {
    // The stream had already ended (204 after --after past its end): ask the run how it ended.
    const run = (await client.getRun(runId)).value;
    state = run.state;
    workloadExit = run.exitCode;
  }
  if (options.workloadExitCode && workloadExit !== null && state !== 'canceled') {
    // A shell keeps only the low 8 bits of an exit status; so does this.
    return workloadExit & 0xff;
  }
  return exitCodeFor(state);
}

export interface FollowShowOptions {
  /** Resume after this event id. */
  readonly after?: string | undefined;
  /** Exit with the workload's own exit code when it has one (`--workload-exit-code`). */
  readonly workloadExitCode?: boolean | undefined;
}

/** Run ids as the server makes them (UUIDs). */
const RUN_ID = /^[A-Za-z0-9-]+$/;

/**
 * The command that resumes following, with the flags that shape its output, or none when the server's
 * event id (or run id) is not a plain word: pasted, `5;curl x|sh` would run more than wrs.
 */
function resumeCommand(runId: string, lastId: string | undefined, json: boolean, workloadExitCode: boolean): string | undefined {
  if (!RUN_ID.test(runId) || (lastId && !isEventId(lastId))) {
    return undefined;
  }
  const flags = [workloadExitCode ? ' --workload-exit-code' : '', lastId ? ` --after ${lastId}` : ''].join('');
  return `wrs${json ? ' --json' : ''} runs events ${runId} --follow${flags}`;
}

function exitOf(item: FollowItem): number | null | undefined {
  if (item.kind === 'event' && (item.event.type === 'run.succeeded' || item.event.type === 'run.failed')) {
    return item.event.data.exitCode;
  }
  return undefined;
}

function nextState(item: FollowItem, current: RunState | 'unknown'): RunState | 'unknown' {
  if (item.kind === 'reset') {
    return item.reset.data.run?.state ?? current;
  }
  return stateAfter(item.event.type) ?? current;
}

export function exitCodeFor(state: RunState | 'unknown'): ExitCode {
  switch (state) {
    case 'succeeded':
      return EXIT.ok;
    case 'failed':
      return EXIT.runFailed;
    case 'canceled':
      return EXIT.runCanceled;
    case 'queued':
    case 'starting':
    case 'running':
    case 'canceling':
    case 'unknown':
    default:
      // Not over (the caller stopped following early), or a state a newer server added, which the
      // contract says to treat as not terminal: nothing went wrong.
      return EXIT.ok;
  }
}
