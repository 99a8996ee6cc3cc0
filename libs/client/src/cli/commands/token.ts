import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Invocation } from '../arguments';
import { saveConfig } from '../config-writer';
import { EXIT, UsageError, type ExitCode } from '../exit-codes';
import type { CliIo } from '../io';

/** In a repository checkout, this file is dist/libs/client/src/cli/commands/; the token script is dist/scripts/src/. */
const MINT_SCRIPT = join(__dirname, '..', '..', '..', '..', '..', 'scripts', 'src', 'mint-token.js');

/** Whether `wrs token` works here: in a built repository checkout, not in a packed install (no token script). */
export function canMintTokens(mintScript: string = MINT_SCRIPT): boolean {
  return existsSync(mintScript);
}

/** What the CLI says without a token: where to get one, true for where it runs. */
export function noTokenMessage(configPath: string, canMint: boolean = canMintTokens()): string {
  const getOne = canMint
    ? 'for the local stack: wrs token --workspace demo'
    : "a token from your identity provider; for a development stack, the one `npm run token -- --workspace demo` prints in the service's checkout";
  return `no token: set WRS_TOKEN or "token" in ${configPath} (${getOne})`;
}

/**
 * `wrs token` (development): mints a token with `npm run token` and saves it in the config file (mode 0600),
 * so it never shows on a command line. `--print` writes it to stdout instead, for `export WRS_TOKEN=$(...)`.
 */
export function tokenCommand(io: CliIo, invocation: Invocation, configPath: string): ExitCode {
  const { workspace, ttl, print } = invocation.options;
  if (!workspace) {
    throw new UsageError('token needs --workspace');
  }
  if (!canMintTokens()) {
    throw new UsageError('token is a development command: run it from a built repository checkout (npm run cli -- token ...)');
  }
  const minted = spawnSync(process.execPath, [MINT_SCRIPT, '--workspace', workspace, ...(ttl ? ['--ttl', ttl] : [])], {
    encoding: 'utf8',
    env: io.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (minted.status !== 0) {
    // The script's own messages (a bad --ttl, no database) say what is wrong; they never hold a token.
    io.err(minted.stderr.trim());
    return EXIT.usage;
  }
  const token = minted.stdout.trim().split('\n').at(-1) ?? '';
  if (print) {
    io.out(token);
    return EXIT.ok;
  }
  saveConfig(configPath, { token, workspace });
  io.err(`${minted.stderr.trim()}; saved to ${configPath} (mode 600)`);
  return EXIT.ok;
}
