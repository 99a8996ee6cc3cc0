import { WrsClient } from '../client';
import { parseInvocation } from './arguments';
import { listRunsCommand } from './commands/runs';
import { EXIT } from './exit-codes';
import type { CliIo } from './io';

const RUN = {
  id: '0b7f5a0e-6a0a-4a53-9a4e-4a1f2c3d4e5f',
  state: 'failed',
  terminal: true,
  createdAt: '2026-11-25T12:00:00.000Z',
  provider: 'auto',
  region: 'auto',
  placement: { provider: 'simulator', region: 'local-1', reason: 'the only provider' },
  workload: { image: 'busybox' },
};

/** `wrs <argv>` (a `runs list`) against an API that answers every GET /runs with `page`. */
async function list(argv: string[], page: { items: unknown[]; nextCursor: string | null }) {
  const asked: string[] = [];
  const fetch = ((url: string | URL) => {
    asked.push(String(url));
    return Promise.resolve(
      new Response(JSON.stringify(page), { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' } }),
    );
  }) as typeof globalThis.fetch;
  const client = new WrsClient({ baseUrl: 'http://127.0.0.1:1/api/v1', token: 't', fetch });
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env: {},
    home: '/nonexistent',
    interactive: false,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    status: () => undefined,
    now: () => 0,
  };
  const code = await listRunsCommand(client, io, parseInvocation(argv));
  return { code, out, err, asked };
}

/** An empty page said nothing at all: `wrs runs list --state failed` looked the same as a hung or broken command. */
describe('wrs runs list with no run to show', () => {
  it('--state failed matching nothing says "No runs match." on stderr, exit 0, stdout empty for a pipe', async () => {
    const { code, out, err, asked } = await list(['runs', 'list', '--state', 'failed'], { items: [], nextCursor: null });
    expect(asked).toEqual(['http://127.0.0.1:1/api/v1/runs?state=failed']);
    expect({ code, out, err }).toEqual({ code: EXIT.ok, out: [], err: ['No runs match.'] });
  });

  it('a workspace without runs says "No runs."', async () => {
    const { code, out, err } = await list(['runs', 'list'], { items: [], nextCursor: null });
    expect({ code, out, err }).toEqual({ code: EXIT.ok, out: [], err: ['No runs.'] });
  });

  it('an empty page after a cursor says "No more runs."', async () => {
    const { code, out, err } = await list(['runs', 'list', '--cursor', 'abc', '--label', 'team=ml'], { items: [], nextCursor: null });
    expect({ code, out, err }).toEqual({ code: EXIT.ok, out: [], err: ['No more runs.'] });
  });

  it('--json stays the page alone: items [] on stdout, nothing on stderr', async () => {
    const { code, out, err } = await list(['--json', 'runs', 'list', '--state', 'failed'], { items: [], nextCursor: null });
    expect({ code, err }).toEqual({ code: EXIT.ok, err: [] });
    expect(out.map((line) => JSON.parse(line) as unknown)).toEqual([{ kind: 'runs', items: [], nextCursor: null, requestId: 'req-1' }]);
  });

  it('a page with runs prints them and no such line', async () => {
    const { code, out, err } = await list(['runs', 'list', '--state', 'failed'], { items: [RUN], nextCursor: null });
    expect({ code, err }).toEqual({ code: EXIT.ok, err: [] });
    expect(out).toEqual([`${RUN.id}  failed     ${RUN.createdAt}  simulator/local-1  busybox`]);
  });
});
