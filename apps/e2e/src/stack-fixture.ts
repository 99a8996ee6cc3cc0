import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SigningKey } from '@wrs/auth';
import { ensureDevCredentialKeys } from '@wrs/credentials';
import { LocalStack, type StackSettings } from '@wrs/devstack';
import { openDatabase, Workspaces } from '@wrs/persistence';
import {
  ContractClient,
  eventually,
  isolatedEnvironment,
  patience,
  testSigningKey,
  testToken,
  type IsolatedEnvironment,
} from '@wrs/testing';

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
  images?: StackSettings['images'],
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
    // Tests poll freely; the limits suite sets its own low limits. A killed worker's messages come back
    // after 5 s, not the production 30 s: the crash tests wait for that redelivery.
    extraEnv: {
      RECONCILE_INTERVAL_MS: '50',
      JETSTREAM_ACK_WAIT_MS: '5000',
      LIMIT_REQUESTS_PER_MINUTE: '100000',
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '100000',
      ...extraEnv,
    },
    replicas,
    ...(images ? { images } : {}),
    onOutput: (service, line) => logs.push(`[${service}] ${line}`),
    startTimeoutMs: patience(30_000),
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
      // And a leak test: Node warns when listeners pile up on one emitter (one per retry, say).
      const piling = logs.filter((line) => line.includes('MaxListenersExceededWarning'));
      if (piling.length > 0) {
        throw new Error(`listeners piled up in a service:\n${piling.join('\n')}`);
      }
    },
  };
}

/**
 * The run as GET answers it once the projection has its terminal state: the event stream ends at the
 * terminal event, and the projection GET reads may be a moment behind it.
 */
export function terminalRun(f: StackFixture, runId: string, token: string): Promise<Record<string, unknown>> {
  return eventually(
    async () => {
      const res = await f.client.call('GET /runs/{runId}', `/runs/${runId}`, { token });
      const body = res.body as Record<string, unknown>;
      return body['terminal'] === true ? body : undefined;
    },
    15_000,
    `run ${runId} to be terminal in the projection`,
  );
}
