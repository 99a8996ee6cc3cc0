import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from './clock';
import { DEFAULT_RETRY_POLICY } from './retry-policy';
import { followRun, type FollowItem } from './follow';
import { Transport } from './transport';

const RUN = '11111111-1111-4111-8111-111111111111';
const event = (id: number, type: string, data: object = { at: '2026-11-22T00:00:00.000Z' }) =>
  `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ type, runId: RUN, workspaceId: 'ws', time: '2026-11-22T00:00:00.000Z', data })}\n\n`;

/** A loopback SSE server whose n-th connection is answered by the n-th script; it records each request's headers. */
async function sseServer(
  scripts: ((res: ServerResponse) => void)[],
): Promise<{ url: string; seen: IncomingHttpHeaders[]; close: () => void }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const script = scripts[seen.length - 1];
    if (!script) {
      res.writeHead(500).end();
      return;
    }
    script(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const stream = (res: ServerResponse): ServerResponse => res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });

async function collect(url: string, clock: Clock, idleTimeoutMs = 10_000): Promise<FollowItem[]> {
  const transport = new Transport({ baseUrl: url, token: 't', clock });
  const items: FollowItem[] = [];
  for await (const item of followRun({ transport, clock, random: () => 0, policy: DEFAULT_RETRY_POLICY }, RUN, { idleTimeoutMs })) {
    items.push(item);
  }
  return items;
}

function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: () => Date.now(), sleep: (ms) => (sleeps.push(ms), Promise.resolve()) };
}

describe('follow(): resuming an event stream', () => {
  it("after a dropped connection, waits the server's retry: time and resumes with Last-Event-ID; a reset is handed on; ends at the terminal event", async () => {
    const server = await sseServer([
      (res) => {
        stream(res).write(
          `retry: 1234\n\n${event(1, 'run.created', { x: 1 })}${event(2, 'run.dispatched')}id: 3\nevent: run.started\ndata: {"half`,
        );
        setTimeout(() => res.socket?.destroy(), 50);
      },
      (res) => {
        stream(res).end(
          `${event(4, 'unknown.future_event')}event: reset\nid: 6\ndata: ${JSON.stringify({ type: 'reset', data: { reason: 'events_removed', firstAvailableId: 7, run: { state: 'running', terminal: false } } })}\n\n${event(7, 'run.succeeded', { exitCode: 0 })}${event(8, 'run.log')}`,
        );
      },
    ]);
    const clock = recordingClock();
    try {
      const items = await collect(server.url, clock);
      expect(items.map((i) => `${i.id} ${i.kind === 'event' ? i.event.type : 'reset'}`)).toEqual([
        '1 run.created',
        '2 run.dispatched',
        '6 reset',
        '7 run.succeeded',
      ]);
      expect(server.seen.map((h) => h['last-event-id'])).toEqual([undefined, '2']);
      expect(clock.sleeps).toEqual([1234]);
      expect(server.seen.every((h) => h.authorization === 'Bearer t' && h.accept === 'text/event-stream')).toBe(true);
    } finally {
      server.close();
    }
  });

  it('an event type this client does not know: dropped, or with reportSkipped handed on as a skipped item with its id', async () => {
    const body = `${event(3, 'run.started')}${event(4, 'run.progress', { percent: 50 })}${event(5, 'run.succeeded', { exitCode: 0 })}`;
    const server = await sseServer([(res) => void stream(res).end(body), (res) => void stream(res).end(body)]);
    const clock = recordingClock();
    const transport = new Transport({ baseUrl: server.url, token: 't', clock });
    const context = { transport, clock, random: () => 0, policy: DEFAULT_RETRY_POLICY };
    const kinds = async (reportSkipped: boolean): Promise<string[]> => {
      const seen: string[] = [];
      for await (const item of followRun(context, RUN, { reportSkipped })) {
        seen.push(`${item.id} ${item.kind === 'event' ? item.event.type : item.kind === 'skipped' ? `skipped ${item.type}` : 'reset'}`);
      }
      return seen;
    };
    try {
      expect(await kinds(false)).toEqual(['3 run.started', '5 run.succeeded']);
      expect(await kinds(true)).toEqual(['3 run.started', '4 skipped run.progress', '5 run.succeeded']);
    } finally {
      server.close();
    }
  });

  it('a stream that goes quiet past the idle time-out is cut and resumed', async () => {
    const server = await sseServer([
      (res) => void stream(res).write(event(5, 'run.started')),
      (res) => void stream(res).end(event(9, 'run.failed', { failure: { code: 'timed_out', message: 'm' }, exitCode: null })),
    ]);
    try {
      const items = await collect(server.url, recordingClock(), 300);
      expect(items.map((i) => i.id)).toEqual(['5', '9']);
      expect(server.seen.map((h) => h['last-event-id'])).toEqual([undefined, '5']);
    } finally {
      server.close();
    }
  });

  it('a 204 (the run had ended) ends the iteration at once', async () => {
    const server = await sseServer([(res) => void res.writeHead(204, { 'x-request-id': 'r' }).end()]);
    try {
      expect(await collect(server.url, recordingClock())).toEqual([]);
      expect(server.seen).toHaveLength(1);
    } finally {
      server.close();
    }
  });

  it('gives up when the stream keeps ending without an event, instead of reconnecting forever', async () => {
    const server = await sseServer(Array.from({ length: 20 }, () => (res: ServerResponse) => void stream(res).end(': nothing\n\n')));
    try {
      await expect(collect(server.url, recordingClock())).rejects.toThrow(/kept ending without events/);
      expect(server.seen).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    } finally {
      server.close();
    }
  });

  it('does not give up on a quiet run whose streams the server ends at their maximum duration after heartbeats', async () => {
    // The relay ends each stream after SSE_MAX_DURATION_SECONDS; the run is quiet, so only heartbeats came.
    const closes = DEFAULT_RETRY_POLICY.maxAttempts + 4;
    const server = await sseServer([
      ...Array.from({ length: closes }, () => (res: ServerResponse) => void stream(res).end('retry: 1000\n\n: heartbeat\n\n')),
      (res) => void stream(res).end(event(3, 'run.succeeded', { exitCode: 0 })),
    ]);
    const clock = recordingClock();
    try {
      const items = await collect(server.url, clock);
      expect(items.map((i) => i.id)).toEqual(['3']);
      expect(server.seen).toHaveLength(closes + 1);
      // Each resume waits the server's retry: time, not a growing backoff.
      expect(clock.sleeps).toEqual(Array.from({ length: closes }, () => 1000));
    } finally {
      server.close();
    }
  });

  it('does not give up on streams that each stayed open a minute, though nothing came on them', async () => {
    const closes = DEFAULT_RETRY_POLICY.maxAttempts + 4;
    const server = await sseServer([
      ...Array.from({ length: closes }, () => (res: ServerResponse) => void stream(res).end('retry: 1000\n\n')),
      (res) => void stream(res).end(event(3, 'run.succeeded', { exitCode: 0 })),
    ]);
    // Each reading of the clock is a minute on: a stream is seen open at one reading and ended at the next.
    let now = 0;
    const clock: Clock = { now: () => (now += 60_000), sleep: () => Promise.resolve() };
    try {
      expect((await collect(server.url, clock)).map((i) => i.id)).toEqual(['3']);
      expect(server.seen).toHaveLength(closes + 1);
    } finally {
      server.close();
    }
  });

  it('stops at once when the caller aborts, even while the stream is open and quiet', async () => {
    const server = await sseServer([(res) => void stream(res).write(event(1, 'run.created'))]);
    const clock = recordingClock();
    const transport = new Transport({ baseUrl: server.url, token: 't', clock });
    const abort = new AbortController();
    const items: FollowItem[] = [];
    try {
      const following = (async () => {
        for await (const item of followRun({ transport, clock, random: () => 0, policy: DEFAULT_RETRY_POLICY }, RUN, {
          signal: abort.signal,
          idleTimeoutMs: 600_000,
        })) {
          items.push(item);
          setTimeout(() => abort.abort(new Error('stop')), 100);
        }
      })();
      await expect(following).rejects.toThrow('stop');
      expect(items.map((i) => i.id)).toEqual(['1']);
      expect(server.seen).toHaveLength(1);
    } finally {
      server.close();
    }
  });
});
