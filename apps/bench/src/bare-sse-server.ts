import { createServer, type ServerResponse } from 'node:http';

// The fan-out's baseline, a bare node:http SSE server, as a process of its own (forked by
// bare-sse-baseline.ts), so its memory is read from /proc like the relay's. Each stream gets what a
// relay stream gets first (a retry line and one event); `{ send: data }` writes one event, framed as
// the relay frames one, to every open stream.
const streams = new Set<ServerResponse>();
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('retry: 1000\n\nid: 1\nevent: x\ndata: {}\n\n');
  streams.add(res);
  res.on('close', () => streams.delete(res));
});
let sent = 1;
process.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && 'send' in message && typeof message.send === 'string') {
    sent++;
    const frame = Buffer.from(`id: ${sent}\nevent: run.log\ndata: ${message.send}\n\n`);
    streams.forEach((res) => res.write(frame));
  }
});
// The bench ended (or died): so does the baseline.
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
