import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PINNED_CONTRACT_VERSION } from '../generated/contract-version';
import { EXIT } from './exit-codes';
import type { CliIo } from './io';
import { runCli } from './run-cli';

const RUN = '44444444-4444-4444-8444-444444444444';
const TOKEN = 'Zk3x9QpLw';
const OSC52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/;

/**
 * A relay or proxy that breaks the event stream: its `data:` is not JSON, so the SyntaxError that ends
 * following quotes the relay's bytes. `wrs` prints it once, escaped and cleared of the token, and exits 70.
 */
describe('wrs and an error it did not expect', () => {
  let server: Server;
  let base: string;
  let data = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/api/v1/version') {
        res
          .writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'v' })
          .end(JSON.stringify({ api: 'v1', contractVersion: PINNED_CONTRACT_VERSION, build: { version: 'test', commit: null } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
      res.end(`id: 3\nevent: run.started\ndata: ${data}\n\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });

  afterAll(() => server.close());

  async function wrs(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = {
      env: { WRS_BASE_URL: base, WRS_TOKEN: TOKEN },
      home: mkdtempSync(join(tmpdir(), 'wrs-home-')),
      interactive: false,
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      status: () => undefined,
      now: () => Date.now(),
    };
    return { code: await runCli(argv, io), out, err };
  }

  it('a data line holding an OSC 52 clipboard write: printed once, written out, exit 70', async () => {
    data = OSC52;
    const { code, out, err } = await wrs(['runs', 'events', RUN, '--follow']);
    expect({ code, out }).toEqual({ code: EXIT.unexpected, out: [] });
    expect(err).toEqual([
      `error: Unexpected token '\\x1b', "\\x1b]52;c;ZWN"... is not valid JSON`,
      'wrs: unexpected error (a bug in wrs, or an answer it cannot read)',
    ]);
  });

  it('a data line quoting the token: the token is cleared too', async () => {
    data = `${TOKEN}${OSC52}`;
    const { code, err } = await wrs(['runs', 'events', RUN, '--follow']);
    expect(code).toBe(EXIT.unexpected);
    expect(err[0]).toBe(`error: Unexpected token 'Z', "[redacted]\\x1b"... is not valid JSON`);
    expect(err.join('\n')).not.toContain(TOKEN);
    expect(err.join('')).not.toMatch(CONTROL);
  });

  it('--json: one error object on stderr, as before', async () => {
    data = OSC52;
    const { code, err } = await wrs(['--json', 'runs', 'events', RUN, '--follow']);
    expect(code).toBe(EXIT.unexpected);
    expect(err).toHaveLength(1);
    expect(JSON.parse(err[0]!)).toEqual({
      kind: 'error',
      code: 'client_error',
      message: `Unexpected token '\x1b', "\x1b]52;c;ZWN"... is not valid JSON`,
    });
  });
});
