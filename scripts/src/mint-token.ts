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
import { readRunningStack } from '@wrs/devstack';
import { migrate, openDatabase, Workspaces } from '@wrs/persistence';
import { DEV_KEYS_DIR } from './repo-root';
import { checkStackSees, stackSettings } from './token-stack';

const USAGE = 'usage: npm run token -- --workspace <id> [--ttl <seconds>] [--name <workspace name>] [--subject <who>]';

/**
 * `npm run token`: a short-lived development token for a workspace, signed with the local key,
 * creating the workspace if needed. The token is alone on the last line so scripts can take it.
 * When `npm start` runs with these keys, the workspace is made where that stack looks (its schema),
 * and the token is refused unless that stack accepts it.
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
  const keysDir = config.DEV_KEYS_DIR ?? DEV_KEYS_DIR;
  const running = readRunningStack(keysDir);
  const settings = stackSettings(config, process.env, running);
  const { privateKeyFile } = ensureDevKeyPair(keysDir);
  if (!running) {
    // A running stack migrated its schema when it started; only a schema no stack has used may need it.
    await migrate(settings.database);
  }
  const db = await openDatabase(settings.database);
  const record = await new Workspaces(db).ensure(workspace, values.name ?? workspace);
  await db.destroy();
  const token = await mintAccessToken(readSigningKey(privateKeyFile), {
    issuer: settings.issuer,
    audience: settings.audience,
    workspaceId: record.id,
    subject: values.subject ?? 'dev-user',
    ttlSeconds: ttl,
  });
  if (running) {
    await checkStackSees(running, token, record.id);
  }
  console.error(
    `workspace ${record.id} (schema ${settings.database.schema}${running ? `, the stack at ${running.baseUrl}` : ', no running npm start found'}); token valid for ${ttl} s`,
  );
  console.log(token);
  process.exit(0);
});

function usage(message: string): Error {
  return new ConfigError([`${message}\n${USAGE}`]);
}
