import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectTempDirsRemoved, patience, settlesWithin } from '@wrs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WrsClient } from '../client';
import { PINNED_CONTRACT_VERSION } from '../generated/contract-version';
import { parseInvocation } from './arguments';
import { runEventsCommand } from './commands/runs';
import { EXIT } from './exit-codes';
import type { CliIo } from './io';
import { runCli } from './run-cli';

const RUN = '55555555-5555-4555-8555-555555555555';
const at = '2026-11-26T00:00:00.000Z';

interface Recorded {
  readonly id: number;
  readonly type: string;
  readonly data: object;
}

const log = (id: number, index: number, line: string): Recorded => ({ id, type: 'run.log', data: { index, stream: 'stdout', line, at } });
const CREATED: Recorded = { id: 1, type: 'run.created', data: { at } };
const DISPATCHED: Recorded = {
  id: 2,
  type: 'run.dispatched',
  data: { at, placement: { provider: 'simulator', region: 'local', reason: 'requested', candidates: [] } },
};
const STARTED: Recorded = { id: 3, type: 'run.started', data: { at } };

/**
 * A loopback API holding one run as the server keeps it: `GET /runs/{id}` with `version` (its last
 * state-changing event) and `logLines`, and its event stream from Last-Event-ID, which stays open while
 * the run is unfinished and brings `later` (an event the run did not have when read) after `laterMs`.
 */
class FakeRun {
  readonly server: Server;
  readonly streamsOpened: (string | undefined)[] = [];
  /** Every request's path, /version included. */
  readonly requests: string[] = [];
  baseUrl = '';
  run = { state: 'running', terminal: false, version: 0, logLines: 0 };
  events: Recorded[] = [];
  later: Recorded | undefined;
  laterMs = 300;
  private readonly open = new Set<ServerResponse>();

  constructor() {
    this.server = createServer((req, res) => {
      this.requests.push(req.url ?? '');
      if (req.url === '/api/v1/version') {
        res
          .writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'v' })
          .end(JSON.stringify({ api: 'v1', contractVersion: PINNED_CONTRACT_VERSION, build: { version: 'test', commit: null } }));
        return;
      }
      if (req.url === `/api/v1/runs/${RUN}`) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'g' }).end(JSON.stringify({ id: RUN, ...this.run }));
        return;
      }
      const lastEventId = req.headers['last-event-id'] as string | undefined;
      this.streamsOpened.push(lastEventId);
      if (lastEventId !== undefined && !/^\d+$/.test(lastEventId)) {
        res.writeHead(400, { 'content-type': 'application/problem+json', 'x-request-id': 'p' }).end(
          JSON.stringify({
            type: 'urn:workload-run-service:problem:invalid_last_event_id',
            title: 'Last-Event-ID is not an event id.',
            status: 400,
            code: 'invalid_last_event_id',
            requestId: 'p',
            retryable: false,
          }),
        );
        return;
      }
      const after = Number(lastEventId ?? 0);
      const held = this.events.filter((e) => e.id > after);
      if (this.run.terminal && held.length === 0) {
        res.writeHead(204, { 'x-request-id': 's' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 's' });
      res.write(held.map(frame).join(''));
      if (this.run.terminal) {
        res.end();
        return;
      }
      this.open.add(res);
      res.on('close', () => this.open.delete(res));
      const later = this.later;
      if (later) {
        setTimeout(() => res.write(frame(later)), this.laterMs);
      }
    });
  }

  async listen(): Promise<WrsClient> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v1`;
    return new WrsClient({ baseUrl: this.baseUrl, token: 't' });
  }

  close(): void {
    this.open.forEach((res) => res.destroy());
    this.server.close();
  }
}

function frame(e: Recorded): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify({ type: e.type, runId: RUN, workspaceId: 'ws', time: at, data: e.data })}\n\n`;
}

/** The human line `runs events` prints for an event. */
const line = (e: Recorded): string => `${e.id}  ${e.type}  ${JSON.stringify(e.data)}`;

/** `wrs runs events` without --follow, or 'still waiting' when it has not returned within 2 s (times the patience knob). */
async function runsEvents(client: WrsClient, ...flags: string[]): Promise<{ code: number | 'still waiting'; out: string[] }> {
  const out: string[] = [];
  const io: CliIo = {
    env: {},
    home: '',
    interactive: false,
    out: (l) => out.push(l),
    err: () => undefined,
    status: () => undefined,
    now: () => Date.now(),
  };
  const code = await settlesWithin(patience(2000), runEventsCommand(client, io, parseInvocation(['runs', 'events', RUN, ...flags])));
  return { code, out };
}

/** The home of every `wrs()` (empty: no config file), one for the file. */
let home: string;

/** `wrs` itself, its base URL the fake's, or 'still waiting' when it has not returned within 2 s (times the patience knob). */
async function wrs(fake: FakeRun, argv: string[]): Promise<{ code: number | 'still waiting'; err: string[] }> {
  const err: string[] = [];
  const io: CliIo = {
    env: { WRS_BASE_URL: fake.baseUrl, WRS_TOKEN: 't' },
    home,
    interactive: false,
    out: () => undefined,
    err: (l) => err.push(l),
    status: () => undefined,
    now: () => Date.now(),
  };
  return { code: await settlesWithin(patience(2000), runCli(argv, io)), err };
}

const madeDirs = expectTempDirsRemoved(() => {
  // Removed first, so a failed expect below does not leave it behind.
  rmSync(home, { recursive: true, force: true });
  // The watch saw the home made, so it worked.
  expect(madeDirs).toContain(home);
});

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'wrs-home-'));
});

/** `wrs runs events <id>` without --follow: the events the run has when asked, then exit 0, not the next one. */
describe('runs events without --follow', () => {
  let fake: FakeRun;
  let client: WrsClient;

  beforeEach(async () => {
    fake = new FakeRun();
    client = await fake.listen();
  });

  afterEach(() => fake.close());

  it('a running run: every event it has, the log lines after its last state change too; not the next one', async () => {
    const logs = [log(5, 0, 'hello'), log(6, 1, 'world')];
    fake.run = { state: 'running', terminal: false, version: STARTED.id, logLines: 2 };
    fake.events = [CREATED, DISPATCHED, STARTED, ...logs];
    fake.later = log(8, 2, 'printed after wrs read the run');
    expect(await runsEvents(client)).toEqual({ code: EXIT.ok, out: [CREATED, DISPATCHED, STARTED, ...logs].map(line) });
  });

  it('--after the last event it has: nothing, at once (it used to wait for the next event and print that)', async () => {
    fake.run = { state: 'running', terminal: false, version: STARTED.id, logLines: 2 };
    fake.events = [CREATED, DISPATCHED, STARTED, log(5, 0, 'hello'), log(6, 1, 'world')];
    fake.later = log(8, 2, 'printed after wrs read the run');
    fake.laterMs = 1000;
    expect(await runsEvents(client, '--after', '6')).toEqual({ code: EXIT.ok, out: [] });
  });

  it('--after an event in the middle: the ones after it, up to the last log line', async () => {
    fake.run = { state: 'running', terminal: false, version: STARTED.id, logLines: 2 };
    fake.events = [CREATED, DISPATCHED, STARTED, log(5, 0, 'hello'), log(6, 1, 'world')];
    fake.later = log(8, 2, 'printed after wrs read the run');
    expect(await runsEvents(client, '--after', '3')).toEqual({ code: EXIT.ok, out: [log(5, 0, 'hello'), log(6, 1, 'world')].map(line) });
    expect(await runsEvents(client, '--after', '5')).toEqual({ code: EXIT.ok, out: [line(log(6, 1, 'world'))] });
  });

  it('log lines before its last state change (a cancel asked while it ran): up to that change, or nothing after it', async () => {
    const cancel: Recorded = { id: 7, type: 'run.cancel_requested', data: { at, requestedBy: 'someone' } };
    fake.run = { state: 'canceling', terminal: false, version: cancel.id, logLines: 2 };
    fake.events = [CREATED, DISPATCHED, STARTED, log(4, 0, 'hello'), log(5, 1, 'world'), cancel];
    fake.later = { id: 9, type: 'run.canceled', data: { at, requestedBy: 'someone' } };
    fake.laterMs = 1000;
    expect(await runsEvents(client, '--after', '5')).toEqual({ code: EXIT.ok, out: [line(cancel)] });
    expect(await runsEvents(client, '--after', '7')).toEqual({ code: EXIT.ok, out: [] });
  });

  it('no log lines and --after its last event: answered from the run alone, no stream opened', async () => {
    fake.run = { state: 'running', terminal: false, version: STARTED.id, logLines: 0 };
    fake.events = [CREATED, DISPATCHED, STARTED];
    fake.later = log(8, 0, 'printed after wrs read the run');
    expect(await runsEvents(client, '--after', '3')).toEqual({ code: EXIT.ok, out: [] });
    expect(fake.streamsOpened).toEqual([]);
  });

  it('a finished run: its events to the terminal one, where the stream ends by itself', async () => {
    const succeeded: Recorded = { id: 9, type: 'run.succeeded', data: { at, exitCode: 0 } };
    fake.run = { state: 'succeeded', terminal: true, version: succeeded.id, logLines: 1 };
    fake.events = [CREATED, DISPATCHED, STARTED, log(5, 0, 'hello'), succeeded];
    expect(await runsEvents(client)).toEqual({ code: EXIT.ok, out: fake.events.map(line) });
    expect(await runsEvents(client, '--after', '9')).toEqual({ code: EXIT.ok, out: [] });
  });

  it("its version an event type this client does not know (a newer server's): the events before it, then exit 0", async () => {
    const progress: Recorded = { id: 4, type: 'run.progress', data: { at, percent: 50 } };
    fake.run = { state: 'running', terminal: false, version: progress.id, logLines: 0 };
    // The stream stays open and brings nothing more: only the skipped event says the version was reached.
    fake.events = [CREATED, DISPATCHED, STARTED, progress];
    expect(await runsEvents(client)).toEqual({ code: EXIT.ok, out: [CREATED, DISPATCHED, STARTED].map(line) });
    expect(await runsEvents(client, '--after', '3')).toEqual({ code: EXIT.ok, out: [] });
    expect(await runsEvents(client, '--json')).toMatchObject({ code: EXIT.ok, out: { length: 3 } });
  });

  it('an unknown event type past its version is no end: the log lines the run had after it are printed', async () => {
    const progress: Recorded = { id: 4, type: 'run.progress', data: { at, percent: 50 } };
    fake.run = { state: 'running', terminal: false, version: STARTED.id, logLines: 1 };
    fake.events = [CREATED, DISPATCHED, STARTED, progress, log(5, 0, 'hello')];
    fake.later = log(8, 1, 'printed after wrs read the run');
    expect(await runsEvents(client, '--after', '3')).toEqual({ code: EXIT.ok, out: [line(log(5, 0, 'hello'))] });
  });

  it('human output writes out bidirectional controls in a log line (--json keeps them, below)', async () => {
    fake.run = { state: 'running', terminal: false, version: STARTED.id, logLines: 1 };
    fake.events = [CREATED, DISPATCHED, STARTED, log(5, 0, 'access \u202edetnarg\u202c')];
    expect((await runsEvents(client, '--after', '3')).out).toEqual([
      '5  run.log  {"index":0,"stream":"stdout","line":"access \\u202edetnarg\\u202c","at":"2026-11-26T00:00:00.000Z"}',
    ]);
  });

  it('--json: the same events, one object a line, as the API sent them', async () => {
    fake.run = { state: 'running', terminal: false, version: STARTED.id, logLines: 1 };
    fake.events = [CREATED, DISPATCHED, STARTED, log(5, 0, '\x1b[31mred\u202e')];
    fake.later = log(8, 1, 'printed after wrs read the run');
    const { code, out } = await runsEvents(client, '--json', '--after', '2');
    expect(code).toBe(EXIT.ok);
    expect(out.map((l) => JSON.parse(l) as unknown)).toEqual([
      { kind: 'event', id: '3', event: expect.objectContaining({ type: 'run.started' }) },
      { kind: 'event', id: '5', event: expect.objectContaining({ data: expect.objectContaining({ line: '\x1b[31mred\u202e' }) }) },
    ]);
  });

  it.each([' 1043', '1043\r', '1043 ', 'x1', '', '9007199254740993'])(
    '--after %j, no plain event id: a usage error, exit 2, before any request, with --follow or without',
    async (after) => {
      // Sent, " 1043" would reach the server as 1043 (fetch trims a header value), while wrs took it for none.
      fake.run = { state: 'running', terminal: false, version: STARTED.id, logLines: 0 };
      fake.events = [CREATED, DISPATCHED, STARTED, { id: 1043, type: 'run.cancel_requested', data: { at, requestedBy: 'x' } }];
      for (const follow of [[], ['--follow']]) {
        const { code, err } = await wrs(fake, ['runs', 'events', RUN, ...follow, `--after=${after}`]);
        expect({ code, err: err[0] }).toEqual({ code: EXIT.usage, err: expect.stringMatching(/^error: --after takes an event id/) });
      }
      expect(fake.requests).toEqual([]);
    },
  );
});
