import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import { currentLogContext, createLogger, requestLogMiddleware, startTracing } from '@wrs/observability';
import { jsonBodyMiddleware, requestIdMiddleware } from '@wrs/problem';

/** The JSON lines a logger writes. */
function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe("a request's log context, from the edge's middleware to the route", () => {
  const { lines, stream } = capture();
  let server: Server;
  let base: string;

  beforeAll(async () => {
    startTracing({ service: 'test' });
    const app = express();
    app.use(requestIdMiddleware);
    app.use(requestLogMiddleware(createLogger('test', 'info', stream)));
    app.use(jsonBodyMiddleware({ limitBytes: 1024 }));
    // What a route sees of its request's context, after the body was read (or with none).
    app.all('/context', (_req, res) => {
      res.json(currentLogContext());
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('a route after a JSON body still runs in its request context (the body events fire in the socket’s)', async () => {
    for (const requestId of ['body-1', 'body-2']) {
      const res = await fetch(`${base}/context`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ some: 'body' }),
      });
      expect(await res.json()).toEqual({ requestId });
    }
  });

  it('a route without a body too, and the request line carries the request id', async () => {
    const res = await fetch(`${base}/context`, { headers: { 'x-request-id': 'no-body' } });
    expect(await res.json()).toEqual({ requestId: 'no-body' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.find((l) => l['msg'] === 'request' && l['requestId'] === 'no-body')).toMatchObject({ status: 200, route: '/context' });
  });
});
