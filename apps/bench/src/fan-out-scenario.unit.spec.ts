import { verdictOf } from './target';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { idleMemoryFigure, idleStreams } from './fan-out-scenario';

describe('idleMemoryFigure', () => {
  it('judges the relay against the bare server at most 2x', () => {
    const figure = idleMemoryFigure(5000, 15.1, 9.8);
    expect(figure.ratio).toBe(1.54);
    expect(verdictOf(figure.target!, figure)).toBe('met');
    expect(verdictOf(idleMemoryFigure(5000, 26.4, 9.1).target!, idleMemoryFigure(5000, 26.4, 9.1))).toBe('missed');
  });

  it('a growth of zero or less on either side measures nothing: no ratio, missed, and it says so', () => {
    for (const [relay, bare] of [
      [-22.5, 22.4],
      [3.7, -1],
      [0, 8],
    ] as const) {
      const figure = idleMemoryFigure(1000, relay, bare);
      expect(figure.ratio).toBeUndefined();
      expect(verdictOf(figure.target!, figure)).toBe('missed');
      expect(figure.metric).toContain('nothing measured');
    }
  });
});

/** A local HTTP server answering every request with `answer`; closed with every socket it holds. */
async function serving(answer: (res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, server };
}

async function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('idleStreams, against real local servers', () => {
  const noMemory = (): Promise<number> => Promise.resolve(0);

  it('fails at once with the first refusal when a stream is refused, rather than waiting for it', async () => {
    const { url, server } = await serving((res) =>
      res.writeHead(429, { 'content-type': 'application/problem+json' }).end('{"code":"too_many_streams"}'),
    );
    try {
      const started = Date.now();
      await expect(idleStreams(url, {}, noMemory, 3, () => Promise.resolve(), 60_000)).rejects.toThrow(
        /only 0 of 3 .*HTTP 429.*too_many_streams/,
      );
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      await closed(server);
    }
  });

  it('fails after its patience when streams open but never send a first event', async () => {
    const { url, server } = await serving((res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n'));
    try {
      await expect(idleStreams(url, {}, noMemory, 3, () => Promise.resolve(), 300)).rejects.toThrow(/only 0 of 3 .*not within 0.3 s/);
    } finally {
      await closed(server);
    }
  });

  it('times the event that follows on streams that opened', async () => {
    const open: ServerResponse[] = [];
    const { url, server } = await serving((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write('id: 1\ndata: {}\n\n');
      open.push(res);
    });
    try {
      const measured = await idleStreams(url, {}, noMemory, 3, () => {
        open.forEach((res) => res.write('id: 2\ndata: {}\n\n'));
        return Promise.resolve();
      });
      expect(measured.arrived).toBe(3);
    } finally {
      await closed(server);
    }
  });
});
