import { parseArgs } from 'node:util';
import { isEventId } from './event-id';
import { UsageError } from './exit-codes';

export const USAGE = `usage: wrs [--json] <command>

  version                              the deployed API and contract; checks this client fits it
  workspace                            the workspace the token is bound to, with its limits
  runs create --image IMAGE --provider P --region R
              [--command C]... [--arg A]... [--env K=V]... [--label K=V]... [--timeout SECONDS]
              [--idempotency-key KEY] [--follow [--workload-exit-code]] [-- COMMAND...]
  runs list [--state S]... [--label K=V]... [--created-after TIME] [--created-before TIME]
            [--idempotency-key KEY] [--limit N] [--cursor CURSOR]
  runs get RUN_ID
  runs events RUN_ID [--follow [--workload-exit-code]] [--after EVENT_ID]
  runs cancel RUN_ID
  webhooks create --url HTTPS_URL [--event completed|started|logs]...   (prints the secret once)
  webhooks list | get ID | delete ID | rotate-secret ID | deliveries ID
  token --workspace ID [--ttl SECONDS] [--print]   (development: from a repository checkout)

Token: WRS_TOKEN or "token" in ~/.config/wrs/config.json (WRS_CONFIG; mode 600), never a flag.
Base URL: WRS_BASE_URL or "baseUrl" in the config file (default http://127.0.0.1:8080/api/v1).
Exit codes: 0 ok/succeeded, 1 run failed, 2 usage, 3 run canceled, 4 API error, 5 network error, 70 unexpected,
74 writing output failed, 130 interrupted;
with --workload-exit-code, a followed run that ended with an exit code exits with it.`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  follow: { type: 'boolean', short: 'f' },
  image: { type: 'string' },
  command: { type: 'string', multiple: true },
  arg: { type: 'string', multiple: true },
  env: { type: 'string', multiple: true },
  label: { type: 'string', multiple: true },
  provider: { type: 'string' },
  region: { type: 'string' },
  timeout: { type: 'string' },
  'idempotency-key': { type: 'string' },
  after: { type: 'string' },
  workspace: { type: 'string' },
  ttl: { type: 'string' },
  print: { type: 'boolean' },
  'workload-exit-code': { type: 'boolean' },
  state: { type: 'string', multiple: true },
  'created-after': { type: 'string' },
  'created-before': { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  url: { type: 'string' },
  event: { type: 'string', multiple: true },
} as const;

type OptionName = keyof typeof OPTIONS;
export type Options = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

/** Which options each command takes (besides --json and --help). */
const ALLOWED: Record<string, readonly OptionName[]> = {
  version: [],
  workspace: [],
  'runs create': [
    'image',
    'command',
    'arg',
    'env',
    'label',
    'provider',
    'region',
    'timeout',
    'idempotency-key',
    'follow',
    'workload-exit-code',
  ],
  'runs list': ['state', 'label', 'created-after', 'created-before', 'idempotency-key', 'limit', 'cursor'],
  'runs get': [],
  'runs events': ['follow', 'after', 'workload-exit-code'],
  'runs cancel': [],
  token: ['workspace', 'ttl', 'print'],
  'webhooks create': ['url', 'event'],
  'webhooks list': [],
  'webhooks get': [],
  'webhooks delete': [],
  'webhooks rotate-secret': [],
  'webhooks deliveries': [],
};

export interface Invocation {
  /** e.g. `runs create`, `version`, or `help`. */
  readonly command: string;
  readonly operand: string | undefined;
  readonly options: Options;
  /** What followed `--`: the workload's command for `runs create`. */
  readonly rest: string[];
}

export function parseInvocation(argv: string[]): Invocation {
  const dashes = argv.indexOf('--');
  const own = dashes === -1 ? argv : argv.slice(0, dashes);
  const rest = dashes === -1 ? [] : argv.slice(dashes + 1);
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    return { command: 'help', operand: undefined, options: values, rest };
  }
  const [first, second, third, ...extra] = positionals;
  const grouped = first === 'runs' || first === 'webhooks';
  const command = grouped ? `${first} ${second ?? ''}`.trim() : first!;
  const operand = grouped ? third : second;
  const allowed = ALLOWED[command];
  if (!allowed) {
    throw new UsageError(`unknown command: ${command}`);
  }
  const surplus = grouped ? extra : [third, ...extra].filter((p) => p !== undefined);
  if (surplus.length > 0) {
    throw new UsageError(`unexpected argument: ${surplus[0]}`);
  }
  for (const name of Object.keys(values) as OptionName[]) {
    if (name !== 'json' && name !== 'help' && !allowed.includes(name)) {
      throw new UsageError(`--${name} does not apply to ${command}`);
    }
  }
  if (rest.length > 0 && command !== 'runs create') {
    throw new UsageError(`only runs create takes a command after --`);
  }
  if (values.after !== undefined && !isEventId(values.after)) {
    // Refused here, before any request: fetch trims a header's spaces and the server would take " 1043"
    // as 1043, while wrs would not. The contract's Last-Event-ID is digits only.
    throw new UsageError(`--after takes an event id (digits, as in a resume command), not ${JSON.stringify(values.after)}`);
  }
  if (values['workload-exit-code'] && !values.follow) {
    throw new UsageError('--workload-exit-code needs --follow (the exit code is known when the run ends)');
  }
  const needsRunId = ['runs get', 'runs events', 'runs cancel'].includes(command);
  const needsWebhookId = ['webhooks get', 'webhooks delete', 'webhooks rotate-secret', 'webhooks deliveries'].includes(command);
  if ((needsRunId || needsWebhookId) && !operand) {
    throw new UsageError(`${command} needs a ${needsRunId ? 'run' : 'webhook'} id`);
  }
  if (command === 'webhooks create' && !values.url) {
    throw new UsageError('webhooks create needs --url');
  }
  if (!needsRunId && !needsWebhookId && operand !== undefined) {
    throw new UsageError(`unexpected argument: ${operand}`);
  }
  return { command, operand, options: values, rest };
}
