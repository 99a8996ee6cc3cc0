import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WrsClient } from '../client';
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
});
