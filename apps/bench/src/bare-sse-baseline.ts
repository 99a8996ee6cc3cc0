import { createServer, type ServerResponse } from 'node:http';

/**
 * The fan-out's baseline: a bare node:http SSE server in this process with `connections` idle
 * streams, its memory per stream and the time to write one event to all of them.
 */
export async function bareSseBaseline(connections: number): Promise<{ perConnectionKiB: number; deliveryMs: number }> {
  const clients: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 1000\n\n');
    clients.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  global.gc?.();
  const before = process.memoryUsage().rss;
  const controllers: AbortController[] = [];
  const arrivals: number[] = [];
  let sentAt = 0;
  const readers = Array.from({ length: connections }, async () => {
    const controller = new AbortController();
    controllers.push(controller);
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal });
    const reader = res.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) {
        return;
      }
      if (sentAt > 0 && new TextDecoder().decode(value).includes('id: ')) {
        arrivals.push(performance.now() - sentAt);
      }
    }
  });
  while (clients.length < connections) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const after = process.memoryUsage().rss;
  sentAt = performance.now();
  for (const c of clients) {
    c.write('id: 1\nevent: x\ndata: {}\n\n');
  }
  const deadline = Date.now() + 10_000;
  while (arrivals.length < connections && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  controllers.forEach((c) => c.abort());
  await Promise.all(readers.map((r) => r.catch(() => undefined)));
  server.closeAllConnections();
  server.close();
  // The client side lives in this process too: half the growth is the server's, roughly.
  return { perConnectionKiB: (after - before) / 2 / connections / 1024, deliveryMs: Math.max(...arrivals, 0) };
}
