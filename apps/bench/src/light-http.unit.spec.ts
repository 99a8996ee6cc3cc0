import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstEvent, postJson } from './light-http';

/** The bench's load client against a real node:http server on a real socket. */
describe("light-http: the load generator's client", () => {
  let server: Server;
  let base: string;
  const closedStreams: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.method === 'POST') {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ echoed: JSON.parse(body) as unknown, auth: req.headers.authorization }));
        });
        return;
      }
      if (req.url === '/missing') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': comment first\n\n');
      setTimeout(() => res.write('id: 7\nevent: run.created\ndata: {}\n\n'), 20);
      res.on('close', () => closedStreams.push(req.url ?? ''));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('posts JSON with its headers and reads the JSON answer', async () => {
    const answer = await postJson(`${base}/runs`, { authorization: 'Bearer t' }, JSON.stringify({ a: 1 }));
    expect(answer).toEqual({ status: 201, json: { echoed: { a: 1 }, auth: 'Bearer t' } });
  });

  it('resolves on the first event (not on a comment) and closes the stream', async () => {
    await firstEvent(`${base}/stream-a`, {});
    await new Promise((r) => setTimeout(r, 50));
    expect(closedStreams).toContain('/stream-a');
  });

  it('rejects a stream that is not a 200', async () => {
    await expect(firstEvent(`${base}/missing`, {})).rejects.toThrow('404');
  });
});
