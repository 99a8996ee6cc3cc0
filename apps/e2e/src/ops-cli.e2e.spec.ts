import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, ensureStreams, StreamNames } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { spawned, type Spawned } from './spawned';

const OPS = join(__dirname, '..', '..', '..', 'dist', 'apps', 'run-worker', 'src', 'ops', 'main.js');

function ops(args: string[], env: Record<string, string>): Promise<Spawned> {
  return spawned(process.execPath, [OPS, ...args], env);
}

// The commands' effects are tested in apps/run-worker/src/ops/*.int.spec.ts; this is the built CLI.
describe('npm run ops (the built operator command)', () => {
  let env: IsolatedEnvironment;
  let vars: Record<string, string>;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    const nc = await connectNats(env.natsUrl, 'test');
    await ensureStreams(await jetstreamManager(nc), new StreamNames(env.namespace));
    await nc.close();
    vars = { NATS_URL: env.natsUrl, DATABASE_URL: env.databaseUrl, DATABASE_SCHEMA: env.schema, NAMESPACE: env.namespace };
  });

  afterAll(() => env?.cleanup());

  it('rebuild-projection reports what it did as one JSON line and exits 0', async () => {
    const { code, stdout } = await ops(['rebuild-projection'], vars);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ command: 'rebuild-projection', events: 0, refolded: 0 });
  });

  it('refuses a schema this build has not migrated, naming the step that is missing', async () => {
    const { code, stderr } = await ops(['rebuild-projection'], { ...vars, DATABASE_SCHEMA: `${env.schema}_unmigrated` });
    expect([code, stderr]).toEqual([1, expect.stringContaining('run migrate first')]);
  });

  it('delete-runs reports a dry run; refuses a time inside the idempotency retention; prints usage for a bad line', async () => {
    const dry = await ops(['delete-runs', '--workspace', 'acme', '--finished-before', '2026-01-01T00:00:00Z', '--dry-run'], vars);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ command: 'delete-runs', workspaceId: 'acme', dryRun: true, runs: 0 });
    const recent = await ops(['delete-runs', '--workspace', 'acme', '--finished-before', new Date().toISOString()], vars);
    expect([recent.code, recent.stderr]).toEqual([1, expect.stringContaining('IDEMPOTENCY_RETENTION_SECONDS')]);
    const bad = await ops(['delete-runs', '--workspace', 'acme'], vars);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('usage:')]);
  });
});
