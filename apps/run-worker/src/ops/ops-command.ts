import { WORKSPACE_ID_PATTERN } from '@wrs/auth';

/** A command line the ops tool cannot act on: the message says why, the usage follows. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type OpsCommand =
  | { readonly name: 'rebuild-projection' }
  | { readonly name: 'delete-runs'; readonly workspaceId: string; readonly finishedBefore: Date; readonly dryRun: boolean };

export const OPS_USAGE = `usage:
  ops rebuild-projection
  ops delete-runs --workspace ID --finished-before ISO-8601-TIME [--dry-run]`;

export function parseOpsCommand(argv: readonly string[]): OpsCommand {
  const [name, ...rest] = argv;
  if (name === 'rebuild-projection' && rest.length === 0) {
    return { name };
  }
  if (name !== 'delete-runs') {
    throw new UsageError(name ? `unknown command or arguments: ${argv.join(' ')}` : 'no command');
  }
  const options = new Map<string, string | true>();
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    if (flag === '--dry-run') {
      options.set(flag, true);
    } else if (flag === '--workspace' || flag === '--finished-before') {
      const value = rest[++i];
      if (value === undefined) {
        throw new UsageError(`${flag} needs a value`);
      }
      options.set(flag, value);
    } else {
      throw new UsageError(`unknown option ${flag}`);
    }
  }
  const workspaceId = options.get('--workspace');
  const before = options.get('--finished-before');
  if (typeof workspaceId !== 'string' || !WORKSPACE_ID_PATTERN.test(workspaceId)) {
    throw new UsageError('--workspace must name one workspace id');
  }
  // A full ISO-8601 time with its zone: a bare date or local time is ambiguous for a deletion.
  const finishedBefore = typeof before === 'string' && /(Z|[+-]\d\d:\d\d)$/.test(before) ? new Date(before) : new Date(NaN);
  if (Number.isNaN(finishedBefore.getTime())) {
    throw new UsageError('--finished-before must be an ISO-8601 time with a zone, e.g. 2026-01-01T00:00:00Z');
  }
  return { name, workspaceId, finishedBefore, dryRun: options.has('--dry-run') };
}
