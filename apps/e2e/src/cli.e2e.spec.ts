import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractValidator } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

const CLI = join(__dirname, '..', '..', '..', 'dist', 'libs', 'client', 'src', 'cli', 'main.js');
const SOCKET = process.env['WRS_TEST_CONTAINER_SOCKET'] ?? '/run/podman/podman.sock';
const IMAGE = process.env['WRS_TEST_CONTAINER_IMAGE'] ?? 'localhost/wrs-test/base:bookworm';

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `wrs` as a user would: its own process, its own environment, real sockets. */
function wrs(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function engineAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath: SOCKET, path: `/v1.41${path}`, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** `wrs`, the CLI on the typed client, against the compiled stack (simulator, plus real containers on Podman when there). */
describe('the wrs CLI', () => {
  let f: StackFixture;
  let env: Record<string, string>;
  let token: string;
  let containers = false;

  beforeAll(async () => {
    containers = (await engineAnswers('/_ping')) && (await engineAnswers(`/images/${encodeURIComponent(IMAGE)}/json`));
    if (!containers) {
      console.warn(`SKIPPED (container runs only): no container engine at ${SOCKET} with image ${IMAGE}`);
    }
    const providers = [
      { provider: 'simulator', regions: ['local-1'], priority: 0 },
      ...(containers ? [{ provider: 'container', regions: ['local'], priority: 1 }] : []),
    ];
    f = await startStack(['ws-cli'], { PROVIDERS_JSON: JSON.stringify(providers), ...(containers ? { CONTAINER_ENGINE_SOCKET: SOCKET } : {}) });
    token = f.token('ws-cli');
    // HOME points at an empty folder: no config file unless a test writes one.
    env = { HOME: mkdtempSync(join(tmpdir(), 'wrs-home-')), WRS_BASE_URL: f.stack.baseUrl, WRS_TOKEN: token };
  });

  afterAll(async () => {
    await f?.stop();
  });

  function expectNoToken(run: CliRun): void {
    expect(run.stdout).not.toContain(token);
    expect(run.stderr).not.toContain(token);
  }

  const withContainers = (name: string, body: () => Promise<void>) => it(name, async () => (containers ? body() : undefined), 90_000);

  withContainers('runs create --follow of a real container prints its log lines and exits 0', async () => {
    const run = await wrs(['runs', 'create', '--image', IMAGE, '--provider', 'container', '--region', 'local', '--follow', '--', '/bin/sh', '-c', 'echo hello; sleep 1; echo world'], env);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').filter(Boolean)).toEqual(['hello', 'world']);
    expect(run.stderr).toMatch(/created run [0-9a-f-]{36}/);
    expect(run.stderr).toMatch(/\] running\n/);
    expect(run.stderr).toMatch(/\] succeeded \(exit 0\)/);
    expectNoToken(run);
  });

  withContainers('runs create --follow of a container that exits 3 exits 1 (run failed) and says why', async () => {
    const run = await wrs(['runs', 'create', '--image', IMAGE, '--provider', 'container', '--region', 'local', '--follow', '--command', '/bin/sh', '--command=-c', '--command', 'echo bye; exit 3'], env);
    expect(run.code).toBe(1);
    expect(run.stdout.trim()).toBe('bye');
    expect(run.stderr).toMatch(/failed: workload_exit_nonzero: .*\(exit 3\)/);
    expectNoToken(run);
  });

  it('--json: one JSON object per line, each event as the contract says; exit 1 for a failed run, 0 for a succeeded one', async () => {
    const failed = await wrs(['--json', 'runs', 'create', '--image', 'busybox', '--provider', 'simulator', '--region', 'local-1', '--env', 'SIM_LOG_LINES=3', '--env', 'SIM_EXIT_CODE=3', '--follow'], env);
    expect(failed.code).toBe(1);
    const lines = failed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; run?: unknown; event?: { type: string } });
    expect(lines[0]?.kind).toBe('run');
    contractValidator().assertSchema('Run', lines[0]?.run);
    for (const line of lines.slice(1)) {
      contractValidator().assertSchema('RunEvent', line.event);
    }
    expect(lines.slice(1).map((l) => l.event?.type)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.log', 'run.log', 'run.log', 'run.failed']);
    const ok = await wrs(['runs', 'create', '--image', 'busybox', '--provider', 'simulator', '--region', 'local-1', '--follow'], env);
    expect(ok.code).toBe(0);
    expectNoToken(failed);
  });

  it('runs get, runs events, runs cancel, workspace and version work on a run it created', async () => {
    const created = await wrs(['runs', 'create', '--image', 'busybox', '--provider', 'simulator', '--region', 'local-1', '--env', 'SIM_DURATION_MS=600000'], env);
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const got = await wrs(['runs', 'get', id], env);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain(`run ${id}`);
    const canceled = await wrs(['runs', 'cancel', id], env);
    expect(canceled.code).toBe(0);
    const followed = await wrs(['runs', 'events', id, '--follow'], env);
    expect(followed.code).toBe(3);
    expect(followed.stderr).toMatch(/\] canceled\n/);
    const events = await wrs(['--json', 'runs', 'events', id], env);
    expect(events.code).toBe(0);
    expect(events.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { event: { type: string } }).event.type).at(-1)).toBe('run.canceled');
    const workspace = await wrs(['--json', 'workspace'], env);
    contractValidator().assertSchema('Workspace', (JSON.parse(workspace.stdout) as { workspace: unknown }).workspace);
    const version = await wrs(['version'], env);
    expect(version.code).toBe(0);
    expect(version.stdout).toContain('compatible');
  }, 60_000);

  it('an API error exits 4 with its code and the server request id; a network error exits 5; usage errors exit 2', async () => {
    const missing = await wrs(['runs', 'get', '00000000-0000-4000-8000-000000000000'], env);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/404 run_not_found: .* \(request [0-9a-f-]{36}\)/);
    const asJson = await wrs(['--json', 'runs', 'get', '00000000-0000-4000-8000-000000000000'], env);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ kind: 'error', status: 404, code: 'run_not_found', retryable: false, requestId: expect.any(String) });
    const bad = await wrs(['runs', 'create', '--image', 'Not An Image', '--provider', 'auto', '--region', 'auto'], env);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('400 validation_failed');
    const down = await wrs(['version'], { ...env, WRS_BASE_URL: 'http://127.0.0.1:9/api/v1' });
    expect(down.code).toBe(5);
    expect(down.stderr).toMatch(/network error: .*\(request [0-9a-f-]{36}.*attempts\)/);
    expect((await wrs(['runs', 'create', '--image', 'x'], env)).code).toBe(2);
    expect((await wrs(['runs', 'get'], env)).code).toBe(2);
    expect((await wrs(['runs', 'get', 'x', '--token', token], env)).code).toBe(2);
    [missing, asJson, bad].forEach(expectNoToken);
  }, 60_000);

  it('takes the token from a config file only its owner can read, and refuses one others can read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wrs-config-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ baseUrl: f.stack.baseUrl, token, workspace: 'ws-cli' }));
    const fileEnv = { HOME: dir, WRS_CONFIG: file };
    chmodSync(file, 0o644);
    const refused = await wrs(['workspace'], fileEnv);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`chmod 600 ${file}`);
    chmodSync(file, 0o600);
    const accepted = await wrs(['workspace'], fileEnv);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('workspace ws-cli');
    const noToken = await wrs(['workspace'], { HOME: dir, WRS_BASE_URL: f.stack.baseUrl });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('no token');
  });

  it('token (development) mints with the repository\'s token script and saves it 0600 in the config file, or prints it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'wrs-home-'));
    const tokenEnv = { HOME: home, DATABASE_URL: f.env.databaseUrl, DATABASE_SCHEMA: f.env.schema, DEV_KEYS_DIR: join(home, 'keys') };
    const saved = await wrs(['token', '--workspace', 'ws-minted', '--ttl', '120'], tokenEnv);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toBe('');
    const file = join(home, '.config', 'wrs', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(file, 'utf8')) as { token: string; workspace: string };
    expect(config.workspace).toBe('ws-minted');
    const claims = JSON.parse(Buffer.from(config.token.split('.')[1]!, 'base64url').toString()) as { ws: string; exp: number; iat: number };
    expect(claims).toMatchObject({ ws: 'ws-minted' });
    expect(claims.exp - claims.iat).toBe(120);
    expect(saved.stderr).not.toContain(config.token);
    const printed = await wrs(['token', '--workspace', 'ws-minted', '--print'], tokenEnv);
    expect(printed.code).toBe(0);
    expect(printed.stdout.trim().split('.')).toHaveLength(3);
  });
});
