import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const README = join(__dirname, '..', '..', '..', 'README.md');

/**
 * README.md's curl walk-through ("Calling the API with curl"), read from the README itself so that the
 * quick-start spec runs what a newcomer is told to run: each request body is the README's own `-d`
 * argument as the shell hands it to curl, and what the README says will be seen is read from its text.
 * A README rewritten so that these cannot be found fails here, by name, rather than leaving the spec
 * running an old walk-through.
 */
export interface ReadmeWalkThrough {
  /** Step 4's `IMAGE=`: the image the README names for an engine without a registry. */
  readonly image: string;
  /** Step 4: the run to follow and cancel, for `image`. */
  createBody(image: string): unknown;
  /** Step 5: the second create, answered when it is done, and its `Prefer` header. */
  readonly waitPrefer: string;
  waitBody(image: string): unknown;
  /** Step 6: how long curl follows (`--max-time`), and which event's id it resumes after (0-based) and its type. */
  readonly followSeconds: number;
  readonly resumeAfter: { readonly index: number; readonly type: string };
  /** Step 6: the first two log lines, in a container and simulated. */
  readonly containerLines: readonly [string, string];
  readonly simulatedLine: string;
  /** Step 6: the container's name is this followed by the run's id. */
  readonly containerNamePrefix: string;
  /** Step 7: the cancel's path for a run id, the state its answer shows, the last two events of the stream. */
  cancelPath(runId: string): string;
  readonly stateAfterCancel: string;
  readonly lastEvents: readonly [string, string];
}

export function readmeWalkThrough(text = readFileSync(README, 'utf8')): ReadmeWalkThrough {
  const block = found(
    /## Calling the API with curl\s+```sh\n([\s\S]*?)\n```/.exec(text)?.[1],
    'the sh block of "Calling the API with curl"',
  );
  const step = (n: number): string => {
    const start = block.search(new RegExp(`^# ${n}\\. `, 'm'));
    const end = block.search(new RegExp(`^# ${n + 1}\\. `, 'm'));
    return found(start === -1 || end === -1 ? undefined : block.slice(start, end), `step ${n}`);
  };
  // The comments as one line of prose: their `#` and line breaks removed.
  const prose = (n: number): string =>
    step(n)
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .map((line) => line.replace(/^#\s*/, ''))
      .join(' ');
  const [four, five, six, seven] = [step(4), step(5), step(6), step(7)];
  const image = found(/^IMAGE=(\S+)$/m.exec(four)?.[1], 'step 4: IMAGE=');
  const createArg = found(/^\s*-d (.+)$/m.exec(four)?.[1], "step 4: the create's -d");
  const waitCurl = found(/^curl -s -X POST \$BASE\/runs -H "Prefer: [\s\S]*?^\s*-d .+$/m.exec(five)?.[0], 'step 5: the create with Prefer');
  const waitArg = found(/^\s*-d (.+)$/m.exec(waitCurl)?.[1], "step 5: the Prefer create's -d");
  const ordinal = ['first', 'second', 'third', 'fourth'];
  const resume = found(/the id: of the (\w+) event printed \((run\.\w+)\)/.exec(prose(6)), 'step 6: the event whose id LAST is');
  const ticks = found(/a run\.log event a second with "([^"]+)", "([^"]+)"/.exec(prose(6)), 'step 6: the log lines');
  const cancelTemplate = found(/^curl -s -X POST "\$BASE(\/runs\/\$RUN:cancel)"/m.exec(seven)?.[1], 'step 7: the cancel');
  const ending = found(/then (run\.\w+) and (run\.\w+)(?: \([^)]*\))?, and the stream ends/.exec(prose(7)), 'step 7: the last events');
  return {
    image,
    createBody: (forImage) => shellWordJson(createArg, forImage),
    waitPrefer: found(/-H "Prefer: ([^"]+)"/.exec(waitCurl)?.[1], 'step 5: Prefer'),
    waitBody: (forImage) => shellWordJson(waitArg, forImage),
    followSeconds: Number(found(/--max-time (\d+)/.exec(six)?.[1], 'step 6: --max-time')),
    resumeAfter: { index: ordinal.indexOf(resume[1]!), type: resume[2]! },
    containerLines: [ticks[1]!, ticks[2]!],
    simulatedLine: found(/\(simulated: "([^"]+)"/.exec(prose(6))?.[1], 'step 6: the simulated log line'),
    containerNamePrefix: found(/^podman ps --filter name=(\S+)\$RUN$/m.exec(six)?.[1], 'step 6: podman ps'),
    cancelPath: (runId) => cancelTemplate.replace('$RUN', runId),
    stateAfterCancel: found(/"state":"(\w+)"/.exec(prose(7))?.[1], "step 7: the cancel answer's state"),
    lastEvents: [ending[1]!, ending[2]!],
  };
}

/** A `-d` argument as the shell passes it to curl (quotes removed, `$IMAGE` expanded), read as JSON. */
function shellWordJson(word: string, image: string): unknown {
  if (!/^[\w./:@-]+$/.test(image)) {
    throw new Error(`not an image reference the README's shell line can take as it is: ${image}`);
  }
  return JSON.parse(execFileSync('bash', ['-c', `IMAGE=${image}; printf '%s' ${word}`], { encoding: 'utf8' }));
}

function found<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) {
    throw new Error(`README.md's walk-through no longer has ${what}: update readme-walk-through.ts with it`);
  }
  return value;
}
