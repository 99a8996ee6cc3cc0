import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WrsClient } from '../client';
import { WrsApiError, WrsNetworkError } from '../errors';
import { EXIT } from './exit-codes';
import { followAndShow } from './follow-view';
import type { CliIo } from './io';

const RUN = '22222222-2222-4222-8222-222222222222';
const frame = (id: number, type: string, data: object) =>
  `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ type, runId: RUN, workspaceId: 'ws', time: '2026-11-22T00:00:00.000Z', data })}\n\n`;
const at = '2026-11-22T00:00:00.000Z';

/** The live view on a loopback event stream: what a person sees while a run goes by. */
describe('the live follow view', () => {
  it('prints log lines on stdout, state changes with elapsed time on stderr, a live status line on a terminal; exit code by outcome', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.write(
        frame(1, 'run.created', { at }) +
          frame(2, 'run.dispatched', { at, placement: { provider: 'container', region: 'local', reason: 'requested', candidates: [] } }),
      );
      res.write(frame(3, 'run.started', { at }) + frame(4, 'run.log', { index: 0, stream: 'stdout', line: 'hello', at }));
      // Long enough for the status line (every 250 ms) to be drawn while running.
      setTimeout(
        () => res.end(frame(5, 'run.failed', { at, exitCode: 3, failure: { code: 'workload_exit_nonzero', message: 'exit 3' } })),
        700,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const out: string[] = [];
    const err: string[] = [];
    const status: string[] = [];
    let now = 0;
    const io: CliIo = {
      env: {},
      home: '',
      interactive: true,
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      status: (s) => status.push(s),
      now: () => (now += 100),
    };
    try {
      const client = new WrsClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, token: 't' });
      expect(await followAndShow(client, io, RUN, false)).toBe(EXIT.runFailed);
    } finally {
      server.close();
    }
    expect(out).toEqual(['hello']);
    expect(err.map((l) => l.replace(/^\[[\d.]+s\] /, ''))).toEqual([
      'queued',
      'starting on container/local (requested)',
      'running',
      'failed: workload_exit_nonzero: exit 3 (exit 3)',
    ]);
    expect(err.every((l) => /^\[\d+\.\ds\] /.test(l))).toBe(true);
    expect(status.some((s) => new RegExp(`^running  \\d+\\.\\ds  run ${RUN}$`).test(s))).toBe(true);
    expect(status.at(-1)).toBe('');
  });

  it('writes out control characters of log lines and provider messages (OSC 52, CR, a line break in a line); keeps tab', async () => {
    const osc52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
    const server = await listening((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.end(
        frame(1, 'run.created', { at }) +
          frame(2, 'run.waiting', { at, reason: 'no_capacity', message: `busy\r${osc52}` }) +
          frame(3, 'run.log', { index: 0, stream: 'stdout', line: `copied${osc52}`, at }) +
          frame(4, 'run.log', { index: 1, stream: 'stdout', line: 'ok 10%\rok 100%\nrunning: fake\tcol', at }) +
          frame(5, 'run.succeeded', { at, exitCode: 0 }),
      );
    });
    const seen = captured();
    try {
      expect(await followAndShow(clientOf(server), seen.io, RUN, false)).toBe(EXIT.ok);
    } finally {
      server.close();
    }
    expect(seen.out).toEqual(['copied\\x1b]52;c;ZWNobyBwd25lZA==\\x07', 'ok 10%\\rok 100%\\nrunning: fake\tcol']);
    expect(seen.err.map(withoutTime)).toEqual([
      'queued',
      'waiting (no_capacity): busy\\r\\x1b]52;c;ZWNobyBwd25lZA==\\x07',
      'succeeded (exit 0)',
    ]);
  });

  it('--json keeps the lines as the API sent them', async () => {
    const server = await listening((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.end(
        frame(1, 'run.log', { index: 0, stream: 'stdout', line: '\x1b[31mred\r', at }) + frame(2, 'run.succeeded', { at, exitCode: 0 }),
      );
    });
    const seen = captured();
    try {
      expect(await followAndShow(clientOf(server), seen.io, RUN, true)).toBe(EXIT.ok);
    } finally {
      server.close();
    }
    expect((JSON.parse(seen.out[0]!) as { event: { data: { line: string } } }).event.data.line).toBe('\x1b[31mred\r');
  });

  it('Ctrl-C: the resume command starts after the last event shown', async () => {
    const server = await listening((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.write(frame(1, 'run.created', { at }) + frame(7, 'run.log', { index: 0, stream: 'stdout', line: 'hello', at }));
    });
    const seen = captured(() => process.emit('SIGINT'));
    try {
      expect(await followAndShow(clientOf(server), seen.io, RUN, false)).toBe(EXIT.interrupted);
    } finally {
      server.close();
    }
    expect(seen.err.at(-1)).toBe(`stopped following; run ${RUN} goes on (state queued). Resume: wrs runs events ${RUN} --follow --after 7`);
  });

  it('Ctrl-C before any new event: the resume command starts where this one did', async () => {
    const server = await listening((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.write(': heartbeat\n\n');
      setTimeout(() => process.emit('SIGINT'), 100);
    });
    const seen = captured();
    try {
      expect(await followAndShow(clientOf(server), seen.io, RUN, false, { after: '12' })).toBe(EXIT.interrupted);
    } finally {
      server.close();
    }
    expect(seen.err).toEqual([`stopped following; run ${RUN} goes on (state unknown). Resume: wrs runs events ${RUN} --follow --after 12`]);
  });

  it('an expired token on the reconnect: the error goes on up, after the resume command with the last event id', async () => {
    let connections = 0;
    const server = await listening((_req, res) => {
      connections++;
      if (connections === 1) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
        res.end(frame(1, 'run.created', { at }) + frame(4, 'run.started', { at }));
        return;
      }
      res.writeHead(401, { 'content-type': 'application/problem+json', 'x-request-id': 'p' }).end(
        JSON.stringify({
          type: 'urn:workload-run-service:problem:token_expired',
          title: 'The token has expired.',
          status: 401,
          code: 'token_expired',
          requestId: 'p',
          retryable: false,
        }),
      );
    });
    const seen = captured();
    try {
      const following = followAndShow(clientOf(server), seen.io, RUN, false);
      await expect(following).rejects.toBeInstanceOf(WrsApiError);
    } finally {
      server.close();
    }
    expect(seen.err.at(-1)).toBe(`following stopped after event 4 (the error follows). Resume: wrs runs events ${RUN} --follow --after 4`);
  });

  it('the service gone on the reconnect (a network error): the same', async () => {
    const server = await listening((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.end(frame(9, 'run.started', { at }));
      // Nothing listens when the client comes back: a refused connection, reported at once.
      server.close();
      server.closeAllConnections();
    });
    const seen = captured();
    await expect(followAndShow(clientOf(server), seen.io, RUN, false)).rejects.toBeInstanceOf(WrsNetworkError);
    expect(seen.err.at(-1)).toBe(`following stopped after event 9 (the error follows). Resume: wrs runs events ${RUN} --follow --after 9`);
  });

  it("an event type from the event's JSON that wrs does not describe is written out", async () => {
    const osc52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
    const server = await listening((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      // The SSE event name is one wrs knows; the type inside the data is not.
      res.end(
        `id: 1\nevent: run.started\ndata: ${JSON.stringify({ type: `run.new${osc52}`, runId: RUN, data: {} })}\n\n` +
          frame(2, 'run.succeeded', { at, exitCode: 0 }),
      );
    });
    const seen = captured();
    try {
      expect(await followAndShow(clientOf(server), seen.io, RUN, false)).toBe(EXIT.ok);
    } finally {
      server.close();
    }
    expect(seen.err.map(withoutTime)).toEqual(['run.new\\x1b]52;c;ZWNobyBwd25lZA==\\x07', 'succeeded (exit 0)']);
  });

  it('an event id that is not a sequence number: no resume command to paste, on Ctrl-C or on an error', async () => {
    const hostile = (res: ServerResponse): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.write(
        `id: 5;curl x|sh\x1b]0;t\x07\nevent: run.created\ndata: ${JSON.stringify({ type: 'run.created', runId: RUN, data: { at } })}\n\n`,
      );
    };
    const interrupted = await listening((_req, res) => {
      hostile(res);
      setTimeout(() => process.emit('SIGINT'), 100);
    });
    const seen = captured();
    try {
      expect(await followAndShow(clientOf(interrupted), seen.io, RUN, false)).toBe(EXIT.interrupted);
    } finally {
      interrupted.close();
    }
    expect(seen.err.at(-1)).toBe(`stopped following; run ${RUN} goes on (state queued).`);

    const broken = await listening((_req, res) => {
      hostile(res);
      res.end('event: run.started\ndata: not json\n\n');
    });
    const failed = captured();
    try {
      await expect(followAndShow(clientOf(broken), failed.io, RUN, false)).rejects.toBeInstanceOf(SyntaxError);
    } finally {
      broken.close();
    }
    expect(failed.err.map(withoutTime)).toEqual(['queued']);
  });

  it('the resume command keeps --json and --workload-exit-code', async () => {
    const server = await listening((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.write(frame(1, 'run.created', { at }) + frame(7, 'run.log', { index: 0, stream: 'stdout', line: 'hello', at }));
      setTimeout(() => process.emit('SIGINT'), 100);
    });
    const seen = captured();
    try {
      expect(await followAndShow(clientOf(server), seen.io, RUN, true, { workloadExitCode: true })).toBe(EXIT.interrupted);
    } finally {
      server.close();
    }
    expect(seen.err.at(-1)).toBe(
      `stopped following; run ${RUN} goes on (state queued). Resume: wrs --json runs events ${RUN} --follow --workload-exit-code --after 7`,
    );
  });
});

async function listening(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function clientOf(server: Server): WrsClient {
  return new WrsClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, token: 't' });
}

const withoutTime = (line: string): string => line.replace(/^\[[\d.]+s\] /, '');

/** A non-terminal io that records what is printed; `onOut` runs after each stdout line. */
function captured(onOut: () => void = () => undefined): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env: {},
    home: '',
    interactive: false,
    out: (line) => {
      out.push(line);
      onOut();
    },
    err: (line) => err.push(line),
    status: () => undefined,
    now: () => Date.now(),
  };
  return { io, out, err };
}
