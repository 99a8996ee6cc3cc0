import type { WrsClient } from '../../client';
import type { ApiResult, CreateRunRequest, ListRunsFilter, Run, RunState, Workload } from '../../types';
import type { Invocation } from '../arguments';
import { EXIT, UsageError, type ExitCode } from '../exit-codes';
import { showEventsNow } from '../events-now';
import { followAndShow } from '../follow-view';
import type { CliIo } from '../io';
import { labelsText, runLines } from '../render';
import { shellWord } from '../shell-word';
import { visible } from '../visible';

/** `wrs runs create`: one logical create (one Idempotency-Key, reused by every retry), then maybe follow it. */
export async function createRunCommand(client: WrsClient, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const { options } = invocation;
  const request = createRequestOf(invocation);
  const created = await client.createRun(request, options['idempotency-key'] ? { idempotencyKey: options['idempotency-key'] } : {});
  if (options.json) {
    io.out(
      JSON.stringify({
        kind: 'run',
        run: created.value,
        idempotencyKey: created.idempotencyKey,
        replayed: created.replayed,
        requestId: created.requestId,
      }),
    );
  } else {
    io.err(
      visible(
        `created run ${created.value.id}${created.replayed ? ' (an earlier attempt had created it)' : ''} (request ${created.requestId})`,
      ),
    );
  }
  if (!options.follow) {
    if (!options.json) {
      io.out(visible(created.value.id));
    }
    return EXIT.ok;
  }
  return followAndShow(client, io, created.value.id, options.json === true, { workloadExitCode: options['workload-exit-code'] });
}

function createRequestOf({ options, rest }: Invocation): CreateRunRequest {
  if (!options.image || !options.provider || !options.region) {
    throw new UsageError('runs create needs --image, --provider and --region (auto is allowed for both)');
  }
  const command = [...(options.command ?? []), ...rest];
  const workload: Workload = { image: options.image };
  if (command.length > 0) {
    workload.command = command;
  }
  if (options.arg?.length) {
    workload.args = options.arg;
  }
  if (options.env?.length) {
    workload.env = Object.fromEntries(options.env.map((entry) => pairOf('--env', 'NAME=VALUE', entry)));
  }
  if (options.label?.length) {
    workload.labels = labelsOf(options.label);
  }
  if (options.timeout !== undefined) {
    const seconds = Number(options.timeout);
    if (!Number.isInteger(seconds) || seconds < 1) {
      throw new UsageError('--timeout must be a whole number of seconds');
    }
    workload.timeoutSeconds = seconds;
  }
  return { workload, provider: options.provider, region: options.region };
}

function pairOf(flag: string, form: string, entry: string): [string, string] {
  const equals = entry.indexOf('=');
  if (equals < 1) {
    throw new UsageError(`${flag} takes ${form}, got ${JSON.stringify(entry)}`);
  }
  return [entry.slice(0, equals), entry.slice(equals + 1)];
}

/** `--label K=V`, repeated: the server checks the form and names any key it refuses. */
function labelsOf(entries: readonly string[]): Record<string, string> {
  return Object.fromEntries(entries.map((entry) => pairOf('--label', 'KEY=VALUE (the value may be empty)', entry)));
}

/** `wrs runs get`: the run's current derived state. */
export async function getRunCommand(client: WrsClient, io: CliIo, runId: string, json: boolean): Promise<ExitCode> {
  const answer = await client.getRun(runId);
  if (json) {
    io.out(JSON.stringify({ kind: 'run', run: answer.value, requestId: answer.requestId }));
  } else {
    runLines(answer.value).forEach((line) => io.out(line));
  }
  return EXIT.ok;
}

/** States a run is in once a cancel has been accepted. */
const AFTER_CANCEL: ReadonlySet<string> = new Set(['canceling', 'canceled', 'succeeded', 'failed']);

/**
 * `wrs runs cancel`: cancels and shows the run from the 202. A 0.3.0 server answered with the run from before
 * the cancel, so then the run is re-read for a few seconds until it shows `canceling` or an end.
 */
export async function cancelRunCommand(client: WrsClient, io: CliIo, runId: string, json: boolean): Promise<ExitCode> {
  const accepted = await client.cancelRun(runId);
  let answer: ApiResult<Run> = accepted;
  const deadline = io.now() + CANCEL_READ_BACK_MS;
  while (!AFTER_CANCEL.has(answer.value.state) && io.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await client.getRun(runId);
  }
  if (json) {
    io.out(JSON.stringify({ kind: 'run', run: answer.value, requestId: accepted.requestId }));
  } else if (AFTER_CANCEL.has(answer.value.state)) {
    io.out(visible(`cancel accepted; run ${answer.value.id} is ${answer.value.state}`));
  } else {
    io.out(visible(`cancel accepted; run ${answer.value.id} was still ${answer.value.state} when last read (the cancel is on its way)`));
  }
  return EXIT.ok;
}

const CANCEL_READ_BACK_MS = 5000;

/** `wrs runs list`: one page of the workspace's runs, newest first; the next page's command on stderr. */
export async function listRunsCommand(client: WrsClient, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const { options } = invocation;
  const query: { -readonly [K in keyof ListRunsFilter]: ListRunsFilter[K] } = {};
  if (options.state?.length) {
    query.state = options.state.flatMap((s) => s.split(',')) as RunState[];
  }
  if (options.label?.length) {
    query.labels = labelsOf(options.label);
  }
  if (options['created-after']) {
    query.createdAfter = options['created-after'];
  }
  if (options['created-before']) {
    query.createdBefore = options['created-before'];
  }
  if (options['idempotency-key']) {
    query.idempotencyKey = options['idempotency-key'];
  }
  if (options.cursor) {
    query.cursor = options.cursor;
  }
  if (options.limit !== undefined) {
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1) {
      throw new UsageError('--limit must be a whole number of runs');
    }
    query.limit = limit;
  }
  const page = await client.listRuns(query);
  if (options.json) {
    io.out(JSON.stringify({ kind: 'runs', items: page.value.items, nextCursor: page.value.nextCursor, requestId: page.requestId }));
    return EXIT.ok;
  }
  if (page.value.items.length === 0) {
    // On stderr, as the next page's command: stdout holds only runs, a line each, for a pipe to read.
    io.err(query.cursor !== undefined ? 'No more runs.' : isFiltered(query) ? 'No runs match.' : 'No runs.');
  }
  for (const run of page.value.items) {
    const placed = run.placement ? `${run.placement.provider}/${run.placement.region}` : `${run.provider}/${run.region}`;
    const labels = run.workload.labels && Object.keys(run.workload.labels).length > 0 ? `  ${labelsText(run.workload.labels)}` : '';
    io.out(visible(`${run.id}  ${run.state.padEnd(9)}  ${run.createdAt}  ${placed}  ${run.workload.image}${labels}`));
  }
  if (page.value.nextCursor) {
    // The cursor is the server's and opaque: quoted if need be, so pasting the command runs nothing else.
    io.err(`more: wrs runs list --cursor ${shellWord(page.value.nextCursor)} (with the same filters)`);
  }
  return EXIT.ok;
}

function isFiltered(query: ListRunsFilter): boolean {
  return Object.entries(query).some(([name, value]) => name !== 'limit' && name !== 'cursor' && value !== undefined);
}

/**
 * `wrs runs events`: with --follow, until the run ends (exit code by how it ended); without, the events
 * the run has when it is read (its log lines too), then stop.
 */
export async function runEventsCommand(client: WrsClient, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const runId = invocation.operand!;
  const json = invocation.options.json === true;
  if (invocation.options.follow) {
    return followAndShow(client, io, runId, json, {
      after: invocation.options.after,
      workloadExitCode: invocation.options['workload-exit-code'],
    });
  }
  return showEventsNow(client, io, runId, json, invocation.options.after);
}
