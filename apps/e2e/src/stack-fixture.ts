import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SigningKey } from '@wrs/auth';
import { ensureDevCredentialKeys } from '@wrs/credentials';
import { freePort, LocalStack, type StackSettings } from '@wrs/devstack';
import { openDatabase, Workspaces } from '@wrs/persistence';
import { ContractClient, isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';

export interface StackFixture {
  readonly stack: LocalStack;
  /** The key the stack trusts: for tokens with unusual claims. */
  readonly signingKey: SigningKey;
  readonly client: ContractClient;
  readonly env: IsolatedEnvironment;
  readonly logs: string[];
  token(workspaceId: string): string;
  stop(): Promise<void>;
}

const DIST_DIR = join(__dirname, '..', '..', '..', 'dist');

/**
 * The compiled stack (run `npm run build` first) as real processes in an isolated namespace and schema,
 * with workspaces created in its database and tokens signed by a key made for this run.
 */
export async function startStack(
  workspaces: string[],
  extraEnv: Record<string, string> = {},
  replicas: StackSettings['replicas'] = {},
): Promise<StackFixture> {
  const env = await isolatedEnvironment();
  const { key, publicKeyFile } = testSigningKey();
  const logs: string[] = [];
  const stack = new LocalStack({
    distDir: DIST_DIR,
    natsUrl: env.natsUrl,
    databaseUrl: env.databaseUrl,
    databaseSchema: env.schema,
    redisUrl: env.redisUrl,
    namespace: env.namespace,
    publicKeyFile,
    credentialKeys: ensureDevCredentialKeys(mkdtempSync(join(tmpdir(), 'wrs-kek-'))),
    gatewayPort: await freePort(),
    // Tests poll freely; the limits suite sets its own low limits.
    extraEnv: {
      RECONCILE_INTERVAL_MS: '50',
      LIMIT_REQUESTS_PER_MINUTE: '100000',
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '100000',
      ...extraEnv,
    },
    replicas,
    onOutput: (service, line) => logs.push(`[${service}] ${line}`),
  });
  try {
    await stack.start();
  } catch (error) {
    await stack.stop();
    throw new Error(`stack did not start: ${String(error)}\n${logs.join('\n')}`);
  }
  const db = await openDatabase(env.database);
  await Promise.all(workspaces.map((id) => new Workspaces(db).ensure(id, `Workspace ${id}`)));
  await db.destroy();
  const minted: string[] = [];
  return {
    stack,
    signingKey: key,
    client: new ContractClient(stack.baseUrl),
    env,
    logs,
    token: (workspaceId) => {
      const token = testToken(key, workspaceId);
      minted.push(token);
      return token;
    },
    stop: async () => {
      await stack.stop();
      await env.cleanup();
      // Every suite is also a redaction test: no token it used may appear in any line any service wrote.
      const leaks = logs.filter((line) => minted.some((token) => line.includes(token.split('.')[2] ?? token)));
      if (leaks.length > 0) {
        throw new Error(`a token appeared in the logs:\n${leaks.join('\n')}`);
      }
    },
  };
}
