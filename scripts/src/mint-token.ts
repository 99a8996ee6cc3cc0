import 'reflect-metadata';
import { parseArgs } from 'node:util';
import {
  ACCESS_TOKEN_MAX_TTL_SECONDS,
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  ensureDevKeyPair,
  mintAccessToken,
  readSigningKey,
  WORKSPACE_ID_PATTERN,
} from '@wrs/auth';
import { ConfigError, loadConfig, runService, TokenEnv } from '@wrs/config';
import { migrate, openDatabase, Workspaces } from '@wrs/persistence';
import { DEV_KEYS_DIR } from './repo-root';

const USAGE = 'usage: npm run token -- --workspace <id> [--ttl <seconds>] [--name <workspace name>] [--subject <who>]';

/**
 * `npm run token`: a short-lived development token for a workspace, signed with the local key,
 * creating the workspace if needed. The token is alone on the last line so scripts can take it.
 */
void runService('token', async () => {
  const { values } = parseArgs({
    options: {
      workspace: { type: 'string' },
      ttl: { type: 'string', default: String(DEFAULT_ACCESS_TOKEN_TTL_SECONDS) },
      name: { type: 'string' },
      subject: { type: 'string', default: 'dev-user' },
    },
  });
  const workspace = values.workspace ?? '';
  const ttl = Number(values.ttl);
  if (!WORKSPACE_ID_PATTERN.test(workspace)) {
    throw usage('--workspace must be 1-63 lower-case letters, digits or dashes');
  }
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > ACCESS_TOKEN_MAX_TTL_SECONDS) {
    throw usage(`--ttl must be 1..${ACCESS_TOKEN_MAX_TTL_SECONDS} seconds`);
  }
  const config = loadConfig(TokenEnv, process.env);
  const { privateKeyFile } = ensureDevKeyPair(config.DEV_KEYS_DIR ?? DEV_KEYS_DIR);
  const database = { url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA };
  await migrate(database);
  const db = await openDatabase(database);
  const record = await new Workspaces(db).ensure(workspace, values.name ?? workspace);
  await db.destroy();
  const token = mintAccessToken(readSigningKey(privateKeyFile), {
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    workspaceId: record.id,
    subject: values.subject ?? 'dev-user',
    ttlSeconds: ttl,
  });
  console.error(`workspace ${record.id}; token valid for ${ttl} s`);
  console.log(token);
  process.exit(0);
});

function usage(message: string): Error {
  return new ConfigError([`${message}\n${USAGE}`]);
}
