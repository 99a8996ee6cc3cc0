import 'reflect-metadata';
import { CommonEnv, loadConfig } from '@wrs/config';
import { connectNats, StreamNames } from '@wrs/messaging';
import { openCurrentDatabase } from '@wrs/persistence';
import { deleteRuns } from './delete-runs';
import { OPS_USAGE, parseOpsCommand, UsageError } from './ops-command';
import { rebuildProjection } from './rebuild-projection';

/**
 * Operator commands, run with the service's own configuration (NATS_URL, DATABASE_URL, NAMESPACE...):
 * `npm run ops -- <command>`, or in a cluster `node dist/apps/run-worker/src/ops/main.js <command>` in
 * the migrate image (docs/operations.md). Prints one JSON line with what it did.
 */
async function main(argv: readonly string[]): Promise<void> {
  const command = parseOpsCommand(argv);
  const config = loadConfig(CommonEnv, process.env);
  // A run deleted while its Idempotency-Key is remembered would be named by a retried create: a 404.
  const newest = Date.now() - config.IDEMPOTENCY_RETENTION_SECONDS * 1000;
  if (command.name === 'delete-runs' && command.finishedBefore.getTime() > newest) {
    throw new UsageError(
      `--finished-before must be at least IDEMPOTENCY_RETENTION_SECONDS (${config.IDEMPOTENCY_RETENTION_SECONDS} s) ago`,
    );
  }
  const nc = await connectNats(config.NATS_URL, 'ops');
  // Only on this build's schema (after a restore: migrate first), and at once: an operator is waiting.
  const db = await openCurrentDatabase({ url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA }, 0).catch(async (error: unknown) => {
    await nc.close();
    throw error;
  });
  try {
    const names = new StreamNames(config.NAMESPACE);
    const report =
      command.name === 'rebuild-projection'
        ? await rebuildProjection(nc, db, names)
        : await deleteRuns(nc, db, names, {
            workspaceId: command.workspaceId,
            finishedBefore: command.finishedBefore,
            dryRun: command.dryRun,
          });
    console.log(JSON.stringify({ level: 'info', service: 'ops', command: command.name, ...report }));
  } finally {
    await db.destroy();
    await nc.close();
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`ops: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof Error && error.name === 'UsageError') {
      console.error(OPS_USAGE);
    }
    process.exit(1);
  },
);
