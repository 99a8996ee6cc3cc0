import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds';

const ROOT = join(__dirname, '..', '..', '..');

/** What a user's TypeScript does with the package: its contract types must resolve inside it. */
const CONSUMER = `
import {
  PINNED_CONTRACT_VERSION,
  WrsClient,
  type FollowItem,
  type FollowOptions,
  type FollowOptionsReportingSkipped,
  type Run,
  type RunEvent,
  type SkippedItem,
  type Webhook,
} from '@workload-run-service/client';
const state: Run['state'] = 'queued';
function lineOf(event: RunEvent): string | undefined {
  return event.type === 'run.log' ? event.data.line : undefined;
}
const webhookId = (w: Webhook): string => w.id;
// Options passed as a FollowOptions variable: the items are events and resets only, as before reportSkipped.
async function follows(client: WrsClient, options: FollowOptions): Promise<void> {
  for await (const item of client.follow('r', options)) {
    console.log(item.kind === 'event' ? item.event.type : item.reset.data.run?.state);
  }
  const items: AsyncGenerator<FollowItem> = client.follow('r', options);
  const plain: AsyncGenerator<FollowItem> = client.follow('r');
  const literal: AsyncGenerator<FollowItem> = client.follow('r', { idleTimeoutMs: 1000, reportSkipped: false });
  const all: AsyncGenerator<FollowItem | SkippedItem> = client.follow('r', { ...options, reportSkipped: true });
  for await (const item of all) {
    console.log(item.kind === 'skipped' ? item.type : item.id);
  }
  // @ts-expect-error with reportSkipped: true, skipped items come too
  const notOnly: AsyncGenerator<FollowItem> = client.follow('r', { reportSkipped: true });
  const maybe: AsyncGenerator<FollowItem | SkippedItem> = client.follow('r', { reportSkipped: Math.random() < 0.5 });
  console.log(items, plain, literal, notOnly, maybe);
}
// Options typed FollowOptionsReportingSkipped (reportSkipped a boolean, or absent) may bring skipped items.
async function followsReporting(client: WrsClient, options: FollowOptionsReportingSkipped): Promise<void> {
  const some: AsyncGenerator<FollowItem | SkippedItem> = client.follow('r', options);
  // @ts-expect-error reportSkipped may be true: skipped items may come
  const only: AsyncGenerator<FollowItem> = client.follow('r', options);
  console.log(some, only);
}
// Types derived from follow take its last overload, which is follow as it was before reportSkipped:
// follow(runId: string, options?: FollowOptions): AsyncGenerator<FollowItem>.
type Items = ReturnType<WrsClient['follow']>;
type Options = Parameters<WrsClient['follow']>[1];
const asBefore = (items: Items): AsyncGenerator<FollowItem> => items;
const noOptions: Options = undefined;
const someOptions: Options = { idleTimeoutMs: 1000 };
const runIdOnly: Parameters<WrsClient['follow']> = ['r'];
console.log(typeof followsReporting, typeof asBefore, noOptions, someOptions, runIdOnly);
console.log(typeof WrsClient, PINNED_CONTRACT_VERSION, state, typeof lineOf, typeof webhookId, typeof follows);
`;

/**
 * `npm run client:package` makes a package a user installs and uses: the contract's types, which live in
 * libs/contracts here, travel inside it, and its JavaScript loads with nothing from this repository.
 */
describe('the packaged client', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrs-client-package-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('type-checks and loads in a project that installed only it', () => {
    const built = join(dir, 'built');
    execFileSync(process.execPath, [join(ROOT, 'scripts/client-package.mjs'), built], { stdio: 'pipe' });
    const [packed] = JSON.parse(execFileSync('npm', ['pack', built, '--json', '--pack-destination', dir], { encoding: 'utf8' })) as {
      filename: string;
    }[];

    const project = join(dir, 'project');
    const installed = join(project, 'node_modules/@workload-run-service/client');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['xzf', join(dir, packed?.filename ?? ''), '-C', installed, '--strip-components=1']);
    writeFileSync(join(project, 'consumer.ts'), CONSUMER);

    const tsc = [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '--strict',
      '--noEmit',
      '--module',
      'commonjs',
      '--moduleResolution',
      'node',
      '--target',
      'es2022',
    ];
    const typeRoots = ['--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types'), 'consumer.ts'];
    try {
      execFileSync(process.execPath, [...tsc, ...typeRoots], { cwd: project, stdio: 'pipe' });
    } catch (error) {
      // tsc writes its diagnostics on stdout: show them, not only "Command failed".
      throw new Error(`the consumer does not type-check:\n${String((error as { stdout?: unknown }).stdout)}`);
    }

    const loaded = execFileSync(
      process.execPath,
      ['-e', "const c = require('@workload-run-service/client'); console.log(typeof c.WrsClient, c.PINNED_CONTRACT_VERSION)"],
      {
        cwd: project,
        encoding: 'utf8',
      },
    );
    expect(loaded.trim()).toMatch(/^function \d+\.\d+\.\d+$/);

    // The run event kinds generated from the contract (libs/contracts here) travel inside it, and loading
    // the client loads them from there (followRun knows the kinds by them).
    const kindsLoaded = execFileSync(
      process.execPath,
      [
        '-e',
        "require('@workload-run-service/client'); const [file] = Object.keys(require.cache).filter((f) => f.endsWith('run-event-kinds.js')); console.log(JSON.stringify(require.cache[file].exports.RUN_EVENT_KINDS))",
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(JSON.parse(kindsLoaded) as unknown).toEqual(RUN_EVENT_KINDS);

    // An ES module's named imports (docs/client.md's example) are found only if Node's CommonJS lexer sees them.
    const esm = "import { WrsClient, WrsApiError } from '@workload-run-service/client'; console.log(typeof WrsClient, typeof WrsApiError)";
    const imported = execFileSync(process.execPath, ['--input-type=module', '-e', esm], { cwd: project, encoding: 'utf8' });
    expect(imported.trim()).toBe('function function');
  }, 120_000);
});
