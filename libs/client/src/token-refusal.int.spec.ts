import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from './clock';
import { WrsConfigurationError } from './errors';
import { Transport, type OutgoingRequest } from './transport';

/** A token pasted across two lines, as `export WRS_TOKEN="..."` over a wrapped line leaves it. */
const HEAD = 'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9';
const TAIL = 'eyJ3cyI6ImRlbW8iLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl';
const BROKEN = `${HEAD}\n${TAIL}`;

function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: () => Date.now(), sleep: (ms) => (sleeps.push(ms), Promise.resolve()) };
}

const getWorkspace: OutgoingRequest = {
  method: 'GET',
  path: '/workspaces/current',
  accept: 'application/json',
  authenticated: true,
  retrySafe: true,
};

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) {
      return error;
    }
  }
  throw new Error('it did not fail');
}

function expectNoTokenIn(text: string): void {
  expect(text).not.toContain(HEAD);
  expect(text).not.toContain(TAIL);
}

/** A token no header can carry, against a loopback server that counts what reaches it. */
describe('a token that cannot be a header value', () => {
  let server: Server;
  let url: string;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });

  afterAll(() => server.close());
  beforeEach(() => (seen.length = 0));

  it('is refused when the transport is made, saying where the line break is and not what the token is', () => {
    let refused: unknown;
    try {
      new Transport({ baseUrl: url, token: BROKEN });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(WrsConfigurationError);
    expect((refused as Error).message).toBe(
      `the token cannot be sent: it holds a line break at character ${HEAD.length + 1} (a token is one line of visible ASCII; was it pasted across lines?)`,
    );
    expectNoTokenIn((refused as Error).message);
  });

  it('from a token function, is refused before the request is sent, at once and without retries', async () => {
    const clock = recordingClock();
    const transport = new Transport({ baseUrl: url, token: () => BROKEN, clock });
    const error = await rejectionOf(transport.send(getWorkspace));
    expect(error).toBeInstanceOf(WrsConfigurationError);
    expectNoTokenIn(error.message);
    expect(clock.sleeps).toEqual([]);
    expect(seen).toHaveLength(0);
  });

  it('with spaces and a line break around it, is sent trimmed, as before', async () => {
    const transport = new Transport({ baseUrl: url, token: ` ${HEAD}\n`, retry: { maxAttempts: 1 } });
    await rejectionOf(transport.send(getWorkspace));
    expect(seen.map((h) => h.authorization)).toEqual([`Bearer ${HEAD}`]);
  });

  it('another header fetch cannot send (a workspace id with a line break) is refused at once, not after 8 network retries', async () => {
    const clock = recordingClock();
    const transport = new Transport({ baseUrl: url, token: HEAD, workspaceId: 'ws\ndemo', clock });
    const error = await rejectionOf(transport.send(getWorkspace));
    expect(error).toBeInstanceOf(WrsConfigurationError);
    expect(error.message).toMatch(/^the request cannot be sent: .*invalid header value/s);
    expect(clock.sleeps).toEqual([]);
    expect(seen).toHaveLength(0);
  });
});
