import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureDevKeyPair } from '@wrs/auth';
import { LocalStack } from '@wrs/devstack';
import { migrate } from '@wrs/persistence';
import { ContractClient, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';

const DIST = join(__dirname, '..', '..', '..', 'dist');
const run = promisify(execFile);

describe('npm run token: a development token a newcomer can use at once', () => {
  const keysDir = mkdtempSync(join(tmpdir(), 'wrs-dev-keys-'));
  let env: IsolatedEnvironment;
  let stack: LocalStack;
  const mint = (...args: string[]) =>
    run(process.execPath, [join(DIST, 'scripts/src/mint-token.js'), ...args], {
      env: {
        PATH: process.env['PATH'] ?? '',
        DEV_KEYS_DIR: keysDir,
        DATABASE_URL: env.databaseUrl,
        DATABASE_SCHEMA: env.schema,
      },
    });

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    stack = new LocalStack({
      distDir: DIST,
      natsUrl: env.natsUrl,
      databaseUrl: env.databaseUrl,
      databaseSchema: env.schema,
      redisUrl: env.redisUrl,
      namespace: env.namespace,
      publicKeyFile: ensureDevKeyPair(keysDir).publicKeyFile,
      onOutput: () => undefined,
    });
    await stack.start();
  });

  afterAll(async () => {
    await stack?.stop();
    await env?.cleanup();
  });

  it('prints the token alone on its last line, creating the workspace', async () => {
    const { stdout } = await mint('--workspace', 'newcomer', '--ttl', '120');
    const token = stdout.trim().split('\n').at(-1) ?? '';
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const res = await new ContractClient(stack.baseUrl).call('GET /workspaces/current', '/workspaces/current', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'newcomer' });
  });

  it('refuses a bad workspace id or lifetime with a usage line and exit code 1', async () => {
    await expect(mint('--workspace', 'Bad.Id')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('usage:') });
    await expect(mint('--workspace', 'ok', '--ttl', '99999')).rejects.toMatchObject({ code: 1 });
  });
});
