import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectTempDirsRemoved, patience } from '@wrs/testing';
import { PINNED_CONTRACT_VERSION } from '../generated/contract-version';
import { EXIT } from './exit-codes';

const ROOT = join(__dirname, '..', '..', '..', '..');
const RUN = '66666666-6666-4666-8666-666666666666';
const TOKEN = 'Zk3x9QpLw';
const at = '2026-11-26T00:00:00.000Z';
const EVENTS = [
  { id: 1, type: 'run.created', data: { at } },
  { id: 3, type: 'run.started', data: { at } },
  // A line that quotes the token: a failed write of it must not bring it to stderr.
  { id: 4, type: 'run.log', data: { index: 0, stream: 'stdout', line: `token ${TOKEN}`, at } },
  { id: 5, type: 'run.succeeded', data: { at, exitCode: 0 } },
];

interface Ended {
  readonly code: number | 'still running';
  readonly stderr: string;
}

// Every temporary directory this file makes must be gone when it ends, even when the build failed.
expectTempDirsRemoved();

/**
 * The `wrs` command line as a user runs it: built from these sources (SWC, as `npm run build` does, into a
 * directory of its own), its own process, stdout or stderr the character device /dev/full, whose every
 * write fails with ENOSPC, as a shell's `>/dev/full` makes it.
 */
describe('wrs when writing its output fails', () => {
  let dir: string;
  let main: string;
  let server: Server | undefined;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wrs-output-failure-'));
    const swcrc = JSON.parse(readFileSync(join(ROOT, '.swcrc'), 'utf8')) as { jsc: object };
    const { paths } = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: object } })
      .compilerOptions;
    writeFileSync(join(dir, 'swcrc.json'), JSON.stringify({ ...swcrc, jsc: { ...swcrc.jsc, baseUrl: ROOT, paths } }));
    execFileSync(
      join(ROOT, 'node_modules/.bin/swc'),
      [
        'libs/client/src',
        'libs/contracts/src/generated',
        '-d',
        join(dir, 'built'),
        '--config-file',
        join(dir, 'swcrc.json'),
        '--ignore',
        '**/*.spec.ts',
        '--quiet',
      ],
      { cwd: ROOT, stdio: 'pipe' },
    );
    main = join(dir, 'built/libs/client/src/cli/main.js');

    const listening = createServer((req, res) => {
      const json = (status: number, body: object): void =>
        void res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'q' }).end(JSON.stringify(body));
      if (req.url === '/api/v1/version') {
        json(200, { api: 'v1', contractVersion: PINNED_CONTRACT_VERSION, build: { version: 'test', commit: null } });
      } else if (req.url === `/api/v1/runs/${RUN}`) {
        json(200, { id: RUN, state: 'succeeded', terminal: true, version: 5, logLines: 1 });
      } else if (req.url === `/api/v1/runs/${RUN}/events`) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 's' });
        res.end(
          EVENTS.map(
            (e) =>
              `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify({ type: e.type, runId: RUN, workspaceId: 'ws', time: at, data: e.data })}\n\n`,
          ).join(''),
        );
      } else {
        json(404, {
          type: 'urn:workload-run-service:problem:run_not_found',
          title: 'Run not found.',
          status: 404,
          code: 'run_not_found',
          requestId: 'q',
          retryable: false,
        });
      }
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/api/v1`;
  });

  afterAll(() => {
    // The directory first: when the build failed, there is no server.
    rmSync(dir, { recursive: true, force: true });
    server?.close();
  });

  /** `wrs args`, its stdout and stderr /dev/full or a pipe: its exit code and what reached stderr. */
  async function wrs(args: string[], full: { stdout?: boolean; stderr?: boolean }, closeStdout = false): Promise<Ended> {
    const devFull = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [main, ...args], {
        env: { PATH: process.env['PATH'] ?? '', HOME: dir, WRS_TOKEN: TOKEN, WRS_BASE_URL: base },
        stdio: ['ignore', full.stdout ? devFull : 'pipe', full.stderr ? devFull : 'pipe'],
      });
      if (closeStdout) {
        // The reader goes away before wrs writes (`| head -0`): its next write meets EPIPE.
        child.stdout?.destroy();
      }
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => child.kill(), patience(10_000));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(timer);
      return { code: code ?? 'still running', stderr };
    } finally {
      closeSync(devFull);
    }
  }

  it('runs events >/dev/full: exit 74 and one line on stderr with the error code, no stack trace, no token', async () => {
    expect(await wrs(['runs', 'events', RUN], { stdout: true })).toEqual({
      code: EXIT.outputFailed,
      stderr: 'wrs: writing to stdout failed (ENOSPC); the output is incomplete\n',
    });
    expect(await wrs(['--json', 'runs', 'events', RUN, '--follow'], { stdout: true })).toEqual({
      code: EXIT.outputFailed,
      stderr: 'wrs: writing to stdout failed (ENOSPC); the output is incomplete\n',
    });
  });

  it('runs get of a run that is not there, 2>/dev/full: exit 74, not 1 (the run failed)', async () => {
    expect(await wrs(['runs', 'get', 'nope'], { stderr: true })).toEqual({ code: EXIT.outputFailed, stderr: '' });
    // Both refused: nowhere to say it, the exit code does.
    expect(await wrs(['runs', 'events', RUN], { stdout: true, stderr: true })).toEqual({ code: EXIT.outputFailed, stderr: '' });
  });

  it('a pipe the reader closed still ends wrs quietly with exit 0', async () => {
    expect(await wrs(['runs', 'events', RUN], {}, true)).toEqual({ code: EXIT.ok, stderr: '' });
  });
});
