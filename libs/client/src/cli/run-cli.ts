import { headerToken } from '../bearer-token';
import { WrsClient } from '../client';
import { WrsApiError, WrsConfigurationError, WrsContractMismatchError, WrsNetworkError } from '../errors';
import { redactSecret } from '../redact';
import { parseInvocation, USAGE, type Invocation } from './arguments';
import { cancelRunCommand, createRunCommand, getRunCommand, listRunsCommand, runEventsCommand } from './commands/runs';
import { versionCommand, workspaceCommand } from './commands/meta';
import { noTokenMessage, tokenCommand } from './commands/token';
import { webhooksCommand } from './commands/webhooks';
import { EXIT, UsageError, type ExitCode } from './exit-codes';
import type { CliIo } from './io';
import { errorJson, errorLine } from './render';
import { loadSettings, type CliSettings } from './settings';
import { visible } from './visible';

/**
 * Where a line goes when `io.err` itself threw: straight to the process's stderr. (The process's own
 * streams report a failed write as an event, after write() returned, which processIo turns into exit 74.)
 */
export type LastResort = (line: string) => void;

const STDERR: LastResort = (line) => process.stderr.write(`${line}\n`);

/**
 * Runs one `wrs` command and returns its exit code; every failure is printed (with its request id). When
 * printing one fails, that failure goes to `lastResort` instead, cleared of whichever token was loaded.
 */
export async function runCli(argv: string[], io: CliIo, lastResort: LastResort = STDERR): Promise<ExitCode> {
  let json = argv.includes('--json');
  // Known early, so even an error of reading the config file is cleared of the environment's token.
  let token = io.env['WRS_TOKEN'];
  try {
    const invocation = parseInvocation(argv);
    json = invocation.options.json === true;
    if (invocation.command === 'help') {
      io.out(USAGE);
      return EXIT.ok;
    }
    const settings = loadSettings(io);
    token = settings.token;
    if (invocation.command === 'token') {
      return tokenCommand(io, invocation, settings.configPath);
    }
    return await dispatch(invocation, settings, io);
  } catch (error) {
    try {
      return reportFailure(error, json, token, io);
    } catch (unprinted) {
      // Here, not in main: only runCli knows the token it loaded (WRS_TOKEN or the config file's).
      lastResort(unexpectedErrorLine(unprinted, token));
      return EXIT.unexpected;
    }
  }
}

/** Prints a failure (escaped, cleared of the token) and returns the exit code it calls for. */
function reportFailure(error: unknown, json: boolean, token: string | undefined, io: CliIo): ExitCode {
  // The client never puts the token in a message; this holds even if something it calls does.
  io.err(redactSecret(json ? errorJson(error) : errorLine(error), token));
  if (error instanceof UsageError || error instanceof WrsConfigurationError) {
    if (!json && error instanceof UsageError) {
      io.err('run `wrs --help` for usage');
    }
    return EXIT.usage;
  }
  if (error instanceof WrsApiError || error instanceof WrsContractMismatchError) {
    return EXIT.apiError;
  }
  if (error instanceof WrsNetworkError) {
    return EXIT.networkError;
  }
  // Printed above, escaped and cleared of the token: returned rather than thrown, so it is printed no second time.
  if (!json) {
    io.err('wrs: unexpected error (a bug in wrs, or an answer it cannot read)');
  }
  return EXIT.unexpected;
}

/**
 * The last resort's line for a failure to print: escaped and cleared of the token too, as the message
 * may quote a server's bytes (a stream a relay broke).
 */
export function unexpectedErrorLine(error: unknown, token: string | undefined): string {
  return visible(redactSecret(`wrs: unexpected error: ${error instanceof Error ? error.message : String(error)}`, token));
}

async function dispatch(invocation: Invocation, settings: CliSettings, io: CliIo): Promise<ExitCode> {
  const json = invocation.options.json === true;
  // Refused before any request, naming where it came from; exit 2 as for any bad configuration.
  const token = settings.token ? headerToken(settings.token, settings.tokenOrigin) : undefined;
  const client = new WrsClient({
    baseUrl: settings.baseUrl,
    ...(token ? { token } : {}),
    ...(settings.workspace ? { workspaceId: settings.workspace } : {}),
  });
  if (invocation.command === 'version') {
    return versionCommand(client, io, json);
  }
  if (!token) {
    throw new UsageError(noTokenMessage(settings.configPath));
  }
  // The spec's order: check the deployed contract first, so a mismatch is named instead of failing oddly.
  await client.checkVersion();
  const runId = invocation.operand ?? '';
  switch (invocation.command) {
    case 'workspace':
      return workspaceCommand(client, io, json);
    case 'runs create':
      return createRunCommand(client, io, invocation);
    case 'runs list':
      return listRunsCommand(client, io, invocation);
    case 'runs get':
      return getRunCommand(client, io, runId, json);
    case 'runs events':
      return runEventsCommand(client, io, invocation);
    case 'runs cancel':
      return cancelRunCommand(client, io, runId, json);
    default:
      if (invocation.command.startsWith('webhooks ')) {
        return webhooksCommand(client, io, invocation);
      }
      throw new UsageError(`unknown command: ${invocation.command}`);
  }
}
