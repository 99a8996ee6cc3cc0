import { ConfigError, type TokenEnv } from '@wrs/config';
import type { RunningStack } from '@wrs/devstack';

export interface TokenSettings {
  readonly database: { url: string; schema: string };
  readonly issuer: string;
  readonly audience: string;
}

/** The settings `npm run token` must share with the stack, by the stack's record and by variable. */
const SHARED: ReadonlyArray<[keyof RunningStack, string]> = [
  ['databaseUrl', 'DATABASE_URL'],
  ['databaseSchema', 'DATABASE_SCHEMA'],
  ['namespace', 'NAMESPACE'],
  ['authIssuer', 'AUTH_ISSUER'],
  ['authAudience', 'AUTH_AUDIENCE'],
];

/**
 * The running stack's settings when there is one (a variable set to something else is refused: the
 * workspace would land where that stack never looks); else this command's own variables.
 */
export function stackSettings(
  config: TokenEnv,
  env: Readonly<Record<string, string | undefined>>,
  running: RunningStack | undefined,
): TokenSettings {
  if (!running) {
    return {
      database: { url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA },
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
    };
  }
  const conflicts = SHARED.filter(([field, variable]) => env[variable] !== undefined && env[variable] !== String(running[field])).map(
    // The value may be a URL with a password: name the variable only.
    ([, variable]) =>
      `${variable} differs from the running stack's (pid ${running.pid}, ${running.baseUrl}); unset it, or stop that stack first`,
  );
  if (conflicts.length > 0) {
    throw new ConfigError(conflicts);
  }
  return {
    database: { url: running.databaseUrl, schema: running.databaseSchema },
    issuer: running.authIssuer,
    audience: running.authAudience,
  };
}

/** Asks the running stack for the token's workspace: a token it would not honour is never handed out. */
export async function checkStackSees(running: RunningStack, token: string, workspaceId: string): Promise<void> {
  let status: number;
  let code = '';
  try {
    const res = await fetch(`${running.baseUrl}/workspaces/current`, {
      headers: { authorization: `Bearer ${token}`, 'x-service-workspace-id': workspaceId },
      signal: AbortSignal.timeout(15_000),
    });
    status = res.status;
    code = res.ok ? '' : (((await res.json().catch(() => ({}))) as { code?: string }).code ?? '');
  } catch (error) {
    throw new ConfigError([
      `the stack recorded at ${running.baseUrl} (pid ${running.pid}) does not answer (${(error as Error).message}); no token was printed`,
    ]);
  }
  if (status !== 200) {
    throw new ConfigError([
      `the stack at ${running.baseUrl} cannot see workspace ${workspaceId} (${status} ${code}); no token was printed`,
    ]);
  }
}
