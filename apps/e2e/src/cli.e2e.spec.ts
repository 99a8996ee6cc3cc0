import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, containerEngineMissing, contractValidator, itNeeding } from '@wrs/testing';
import { freePort } from '@wrs/devstack';
import { BUILT_CLI, spawned, wrs, type Spawned as CliRun } from './spawned';
import { startStack, type StackFixture } from './stack-fixture';

const CLI = BUILT_CLI;
const SOCKET = CONTAINER_SOCKET;
const IMAGE = CONTAINER_IMAGE;
const engineMissing = containerEngineMissing();
const containers = engineMissing === undefined;

/** `wrs`, the CLI on the typed client, against the compiled stack (simulator, plus real containers on Podman when there). */
describe('the wrs CLI', () => {
  let f: StackFixture;
  let env: Record<string, string>;
  let token: string;

  beforeAll(async () => {
    const providers = [
      { provider: 'simulator', regions: ['local-1'], priority: 0 },
      ...(containers ? [{ provider: 'container', regions: ['local'], priority: 1 }] : []),
    ];
    f = await startStack(['ws-cli'], {
      PROVIDERS_JSON: JSON.stringify(providers),
      ...(containers ? { CONTAINER_ENGINE_SOCKET: SOCKET } : {}),
    });
    token = f.token('ws-cli');
    // HOME points at an empty folder: no config file unless a test writes one.
    env = { HOME: mkdtempSync(join(tmpdir(), 'wrs-home-')), WRS_BASE_URL: f.stack.baseUrl, WRS_TOKEN: token };
  });

  afterAll(async () => {
    await f?.stop();
  });

  /** Neither the token nor a line of it: one pasted across lines would show as its pieces. */
  function expectNoToken(run: CliRun, secret: string = token): void {
    for (const piece of [secret, ...secret.split(/\s+/).filter(Boolean)]) {
      expect(run.stdout).not.toContain(piece);
      expect(run.stderr).not.toContain(piece);
    }
  }

  const withContainers = (name: string, body: () => Promise<void>) => itNeeding(engineMissing)(name, body, 90_000);

  withContainers('runs create --follow of a real container prints its log lines and exits 0', async () => {
    const run = await wrs(
      [
        'runs',
        'create',
        '--image',
        IMAGE,
        '--provider',
        'container',
        '--region',
        'local',
        '--follow',
        '--',
        '/bin/sh',
        '-c',
        'echo hello; sleep 1; echo world',
      ],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').filter(Boolean)).toEqual(['hello', 'world']);
    expect(run.stderr).toMatch(/created run [0-9a-f-]{36}/);
    expect(run.stderr).toMatch(/\] running\n/);
    expect(run.stderr).toMatch(/\] succeeded \(exit 0\)/);
    expectNoToken(run);
  });

  withContainers('runs create --follow of a container that exits 3 exits 1 (run failed) and says why', async () => {
    const run = await wrs(
      [
        'runs',
        'create',
        '--image',
        IMAGE,
        '--provider',
        'container',
        '--region',
        'local',
        '--follow',
        '--command',
        '/bin/sh',
        '--command=-c',
        '--command',
        'echo bye; exit 3',
      ],
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stdout.trim()).toBe('bye');
    expect(run.stderr).toMatch(/failed: workload_exit_nonzero: .*\(exit 3\)/);
    expectNoToken(run);
  });

  it('--json: one JSON object per line, each event as the contract says; exit 1 for a failed run, 0 for a succeeded one', async () => {
    const failed = await wrs(
      [
        '--json',
        'runs',
        'create',
        '--image',
        'busybox',
        '--provider',
        'simulator',
        '--region',
        'local-1',
        '--env',
        'SIM_LOG_LINES=3',
        '--env',
        'SIM_EXIT_CODE=3',
        '--follow',
      ],
      env,
    );
    expect(failed.code).toBe(1);
    const lines = failed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; run?: unknown; event?: { type: string } });
    expect(lines[0]?.kind).toBe('run');
    contractValidator().assertSchema('Run', lines[0]?.run);
    for (const line of lines.slice(1)) {
      contractValidator().assertSchema('RunEvent', line.event);
    }
    expect(lines.slice(1).map((l) => l.event?.type)).toEqual([
      'run.created',
      'run.dispatched',
      'run.started',
      'run.log',
      'run.log',
      'run.log',
      'run.failed',
    ]);
    const ok = await wrs(['runs', 'create', '--image', 'busybox', '--provider', 'simulator', '--region', 'local-1', '--follow'], env);
    expect(ok.code).toBe(0);
    expectNoToken(failed);
  });

  it('runs get, runs events, runs cancel, workspace and version work on a run it created', async () => {
    const created = await wrs(
      ['runs', 'create', '--image', 'busybox', '--provider', 'simulator', '--region', 'local-1', '--env', 'SIM_DURATION_MS=600000'],
      env,
    );
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const got = await wrs(['runs', 'get', id], env);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain(`run ${id}`);
    const canceled = await wrs(['runs', 'cancel', id], env);
    expect(canceled.code).toBe(0);
    // The state after the cancel, as the 202 says it.
    expect(canceled.stdout).toMatch(new RegExp(`cancel accepted; run ${id} is (canceling|canceled)\n`));
    const followed = await wrs(['runs', 'events', id, '--follow'], env);
    expect(followed.code).toBe(3);
    expect(followed.stderr).toMatch(/\] canceled\n/);
    const events = await wrs(['--json', 'runs', 'events', id], env);
    expect(events.code).toBe(0);
    expect(
      events.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { event: { type: string } }).event.type)
        .at(-1),
    ).toBe('run.canceled');
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
    expect(JSON.parse(asJson.stderr)).toMatchObject({
      kind: 'error',
      status: 404,
      code: 'run_not_found',
      retryable: false,
      requestId: expect.any(String),
    });
    const bad = await wrs(['runs', 'create', '--image', 'Not An Image', '--provider', 'auto', '--region', 'auto'], env);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('400 validation_failed');
    const closed = await freePort();
    const down = await wrs(['version'], { ...env, WRS_BASE_URL: `http://127.0.0.1:${closed}/api/v1` });
    expect(down.code).toBe(5);
    // Refused: reported at once, one attempt (the spec retries 429 and retryable 5xx answers only).
    expect(down.stderr).toMatch(/network error: .*ECONNREFUSED.*not retried\) \(request [0-9a-f-]{36}\)\n/);
    expect((await wrs(['runs', 'create', '--image', 'x'], env)).code).toBe(2);
    expect((await wrs(['runs', 'get'], env)).code).toBe(2);
    expect((await wrs(['runs', 'get', 'x', '--token', token], env)).code).toBe(2);
    [missing, asJson, bad].forEach((run) => expectNoToken(run));
  }, 60_000);

  it("runs list pages the workspace's runs newest first, filters by state, and --json answers the contract's list", async () => {
    const ids: string[] = [];
    for (const exit of ['0', '0', '3']) {
      const created = await wrs(
        [
          'runs',
          'create',
          '--image',
          'busybox',
          '--provider',
          'simulator',
          '--region',
          'local-1',
          '--env',
          `SIM_EXIT_CODE=${exit}`,
          '--follow',
        ],
        env,
      );
      ids.push(/created run ([0-9a-f-]{36})/.exec(created.stderr)?.[1] ?? '');
    }
    const first = await wrs(['--json', 'runs', 'list', '--limit', '2'], env);
    expect(first.code).toBe(0);
    const page = JSON.parse(first.stdout) as { kind: string; items: Array<{ id: string }>; nextCursor: string | null };
    contractValidator().assertSchema('RunList', { items: page.items, nextCursor: page.nextCursor });
    expect(page.items.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const next = JSON.parse((await wrs(['--json', 'runs', 'list', '--limit', '2', '--cursor', page.nextCursor!], env)).stdout) as {
      items: Array<{ id: string }>;
    };
    expect(next.items[0]?.id).toBe(ids[0]);
    const failed = await wrs(['runs', 'list', '--state', 'failed'], env);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toMatch(new RegExp(`^${ids[2]}  failed `, 'm'));
    expect(failed.stdout).not.toContain(ids[0]!);
    // Nothing matches: a line that says so (on stderr: stdout holds runs only), exit 0; --json is the empty page.
    const none = await wrs(['runs', 'list', '--state', 'failed', '--created-before', '2000-01-01T00:00:00Z'], env);
    expect(none).toEqual({ code: 0, stdout: '', stderr: 'No runs match.\n' });
    const noneJson = await wrs(['--json', 'runs', 'list', '--state', 'failed', '--created-before', '2000-01-01T00:00:00Z'], env);
    expect({ code: noneJson.code, stderr: noneJson.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(noneJson.stdout)).toMatchObject({ kind: 'runs', items: [], nextCursor: null });
    const human = await wrs(['runs', 'list', '--limit', '1'], env);
    expect(human.stdout.trim().split('\n')).toHaveLength(1);
    expect(human.stderr).toMatch(/more: wrs runs list --cursor \S+/);
    expect((await wrs(['runs', 'list', '--state', 'nonsense'], env)).code).toBe(4);
  }, 90_000);

  it('runs create --label sets labels, runs get shows them, runs list --label filters by them (all must match)', async () => {
    const create = (...labels: string[]) =>
      wrs(
        [
          'runs',
          'create',
          '--image',
          'busybox',
          '--provider',
          'simulator',
          '--region',
          'local-1',
          ...labels.flatMap((l) => ['--label', l]),
          '--follow',
        ],
        env,
      );
    const ml = await create('team=ml', 'example.com/tier=');
    const web = await create('team=web', 'example.com/tier=');
    expect([ml.code, web.code]).toEqual([0, 0]);
    const [mlId, webId] = [ml, web].map((run) => /created run ([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? '');
    const listed = await wrs(['--json', 'runs', 'list', '--label', 'team=ml'], env);
    expect(listed.code).toBe(0);
    const page = JSON.parse(listed.stdout) as {
      items: Array<{ id: string; workload: { labels?: Record<string, string> } }>;
      nextCursor: string | null;
    };
    contractValidator().assertSchema('RunList', { items: page.items, nextCursor: page.nextCursor });
    expect(page.items.map((r) => [r.id, r.workload.labels])).toEqual([[mlId, { team: 'ml', 'example.com/tier': '' }]]);
    const both = await wrs(['runs', 'list', '--label', 'example.com/tier=', '--label', 'team=web'], env);
    expect(both.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${webId}  succeeded .*  team=web example.com/tier=$`)),
    ]);
    expect((await wrs(['runs', 'get', mlId!], env)).stdout).toMatch(/^ {2}labels {5}team=ml example\.com\/tier=$/m);
    const refused = await wrs(
      ['--json', 'runs', 'create', '--image', 'busybox', '--provider', 'auto', '--region', 'auto', '--label=-team=ml'],
      env,
    );
    expect(refused.code).toBe(4);
    expect(JSON.parse(refused.stderr)).toMatchObject({
      status: 400,
      code: 'validation_failed',
      params: { errors: [{ field: 'workload.labels' }] },
    });
    expect((await wrs(['runs', 'list', '--label', 'team'], env)).code).toBe(2);
  }, 90_000);

  it('output into a pipe closed early (| head -1) exits 0, without an EPIPE trace', async () => {
    const created = await wrs(
      [
        'runs',
        'create',
        '--image',
        'busybox',
        '--provider',
        'simulator',
        '--region',
        'local-1',
        '--env',
        'SIM_LOG_LINES=300',
        '--env',
        'SIM_DURATION_MS=300',
        '--follow',
      ],
      env,
    );
    const id = /created run ([0-9a-f-]{36})/.exec(created.stderr)?.[1] ?? '';
    // pipefail: the pipeline's status is wrs's (head's is 0 anyway).
    const piped = await spawned('bash', ['-c', `set -o pipefail; "${process.execPath}" "${CLI}" runs events ${id} | head -1`], env);
    expect(piped.stdout.trim().split('\n')).toHaveLength(1);
    expect(piped.stderr).not.toContain('EPIPE');
    expect(piped.code).toBe(0);
  }, 60_000);

  it("--workload-exit-code exits with the workload's own exit code; without it a failed run exits 1", async () => {
    const args = [
      'runs',
      'create',
      '--image',
      'busybox',
      '--provider',
      'simulator',
      '--region',
      'local-1',
      '--env',
      'SIM_EXIT_CODE=7',
      '--follow',
    ];
    expect((await wrs([...args, '--workload-exit-code'], env)).code).toBe(7);
    expect((await wrs(args, env)).code).toBe(1);
    const ok = await wrs(
      ['runs', 'create', '--image', 'busybox', '--provider', 'simulator', '--region', 'local-1', '--follow', '--workload-exit-code'],
      env,
    );
    expect(ok.code).toBe(0);
    expect((await wrs(['runs', 'get', 'x', '--workload-exit-code'], env)).code).toBe(2);
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

  it('a token pasted across two lines, in WRS_TOKEN or the config file, is refused at once with exit 2 and never printed', async () => {
    const pasted = `${token.slice(0, 60)}\n${token.slice(60)}`;
    const fromEnv = await wrs(['runs', 'list'], { ...env, WRS_TOKEN: pasted });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toBe(
      'error: WRS_TOKEN cannot be sent: it holds a line break at character 61 (a token is one line of visible ASCII; was it pasted across lines?)\n',
    );
    const dir = mkdtempSync(join(tmpdir(), 'wrs-config-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ baseUrl: f.stack.baseUrl, token: pasted }), { mode: 0o600 });
    const fromFile = await wrs(['--json', 'workspace'], { HOME: dir, WRS_CONFIG: file });
    expect(fromFile.code).toBe(2);
    expect(JSON.parse(fromFile.stderr)).toEqual({
      kind: 'error',
      code: 'usage',
      message: `"token" in ${file} cannot be sent: it holds a line break at character 61 (a token is one line of visible ASCII; was it pasted across lines?)`,
    });
    [fromEnv, fromFile].forEach((run) => expectNoToken(run, pasted));
  });

  it("token (development) mints with the repository's token script and saves it 0600 in the config file, or prints it", async () => {
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
