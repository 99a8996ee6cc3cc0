import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PINNED_CONTRACT_VERSION } from '../generated/contract-version';
import { EXIT } from './exit-codes';
import type { CliIo } from './io';
import { runCli } from './run-cli';

const HEAD = 'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9';
const TAIL = 'eyJ3cyI6ImRlbW8iLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl';
const RUN = '33333333-3333-4333-8333-333333333333';

/** `wrs` in-process, with what it printed. */
async function wrs(argv: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env,
    home: mkdtempSync(join(tmpdir(), 'wrs-home-')),
    interactive: false,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    status: () => undefined,
    now: () => Date.now(),
  };
  const code = await runCli(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function expectNoToken(run: { out: string; err: string }, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(run.out).not.toContain(secret);
    expect(run.err).not.toContain(secret);
  }
}

/**
 * What `wrs` does with a token no header can carry, against a loopback server that answers /version as
 * the contract says and otherwise a problem whose detail quotes the Authorization header it was sent.
 */
describe('wrs and a token that cannot travel, or that an answer quotes', () => {
  let server: Server;
  let base: string;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === '/api/v1/version') {
        res
          .writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'v' })
          .end(JSON.stringify({ api: 'v1', contractVersion: PINNED_CONTRACT_VERSION, build: { version: 'test', commit: null } }));
        return;
      }
      // A server (or a proxy in front of it) that should never, but does, say what it was sent.
      res.writeHead(401, { 'content-type': 'application/problem+json', 'x-request-id': 'p' }).end(
        JSON.stringify({
          type: 'urn:workload-run-service:problem:token_invalid_signature',
          title: 'The token is not valid.',
          status: 401,
          code: 'token_invalid_signature',
          detail: `could not verify ${req.headers.authorization ?? ''}`,
          requestId: 'p',
          retryable: false,
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });

  afterAll(() => server.close());
  beforeEach(() => (seen.length = 0));

  it('WRS_TOKEN pasted across two lines: refused at once with exit 2, naming WRS_TOKEN, before any request', async () => {
    const env = { WRS_BASE_URL: base, WRS_TOKEN: `${HEAD}\n${TAIL}` };
    const human = await wrs(['runs', 'get', RUN], env);
    expect(human).toEqual({
      code: EXIT.usage,
      out: '',
      err: `error: WRS_TOKEN cannot be sent: it holds a line break at character ${HEAD.length + 1} (a token is one line of visible ASCII; was it pasted across lines?)`,
    });
    const json = await wrs(['--json', 'runs', 'get', RUN], env);
    expect(json.code).toBe(EXIT.usage);
    expect(JSON.parse(json.err)).toEqual({
      kind: 'error',
      code: 'usage',
      message: expect.stringMatching(/^WRS_TOKEN cannot be sent: it holds a line break/),
    });
    expect(seen).toHaveLength(0);
    expectNoToken(human, HEAD, TAIL);
    expectNoToken(json, HEAD, TAIL);
  });

  it('a config file\'s "token" with a NUL in it: the same, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wrs-config-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ baseUrl: base, token: `${HEAD}\u0000${TAIL}` }));
    chmodSync(file, 0o600);
    const run = await wrs(['workspace'], { WRS_CONFIG: file });
    expect(run.code).toBe(EXIT.usage);
    expect(run.err).toBe(
      `error: "token" in ${file} cannot be sent: it holds a NUL at character ${HEAD.length + 1} (a token is one line of visible ASCII; was it pasted across lines?)`,
    );
    expect(seen).toHaveLength(0);
    expectNoToken(run, HEAD, TAIL);
  });

  it('an error answer that quotes the token is printed without it, as a line and as JSON', async () => {
    const env = { WRS_BASE_URL: base, WRS_TOKEN: `${HEAD}.${TAIL}` };
    const human = await wrs(['runs', 'get', RUN], env);
    expect(human).toEqual({
      code: EXIT.apiError,
      out: '',
      err: 'error: 401 token_invalid_signature: could not verify Bearer [redacted] (request p)',
    });
    const json = await wrs(['--json', 'runs', 'get', RUN], env);
    expect(json.code).toBe(EXIT.apiError);
    expect(JSON.parse(json.err)).toMatchObject({
      status: 401,
      code: 'token_invalid_signature',
      detail: 'could not verify Bearer [redacted]',
    });
    // The server did get the token: this is the answer quoting it, not the client showing it.
    expect(seen.at(-1)?.authorization).toBe(`Bearer ${HEAD}.${TAIL}`);
    expectNoToken(human, `${HEAD}.${TAIL}`);
    expectNoToken(json, `${HEAD}.${TAIL}`);
  });

  it("printing the error fails: the last resort's line is cleared of the config file's token too, exit 70", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wrs-config-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ baseUrl: base, token: `${HEAD}.${TAIL}` }));
    chmodSync(file, 0o600);
    const lastResort: string[] = [];
    const io: CliIo = {
      env: { WRS_CONFIG: file },
      home: dir,
      interactive: false,
      out: () => undefined,
      // A stderr that fails, with a message quoting the token (as the 401 answer did).
      err: () => {
        throw new Error(`cannot write the line for Bearer ${HEAD}.${TAIL}`);
      },
      status: () => undefined,
      now: () => Date.now(),
    };
    expect(await runCli(['runs', 'get', RUN], io, (line) => lastResort.push(line))).toBe(EXIT.unexpected);
    expect(lastResort).toEqual(['wrs: unexpected error: cannot write the line for Bearer [redacted]']);
  });
});
