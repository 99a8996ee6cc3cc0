import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { settlesWithin } from '@wrs/testing';
import { closeServer, trackConnections } from './server-close';

/** A server that answers after `delayMs`, its connections tracked as the edge guard tracks them. */
async function serving(delayMs = 0): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => setTimeout(() => res.end('answered'), delayMs));
  trackConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * A raw connection that may send `text` (or nothing), once `server` has accepted it and, when `text`
 * is a whole request's head, has taken that request.
 */
async function rawConnection(server: Server, text = ''): Promise<{ socket: Socket; ended: Promise<void> }> {
  const accepted = once(server, 'connection');
  const requested = text.includes('\r\n\r\n') ? once(server, 'request') : Promise.resolve();
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  await accepted;
  if (text) {
    socket.write(text);
  }
  await requested;
  return { socket, ended };
}

/** 'closed' if `closing` settles within `ms`, else 'still waiting'. */
function within(closing: Promise<unknown>, ms: number): Promise<'closed' | 'still waiting'> {
  return settlesWithin(
    ms,
    closing.then(() => 'closed' as const),
  );
}

describe('closeServer, over real sockets', () => {
  it('ends at once a connection that sent nothing and one that sent half a request (server.close alone waits for them for good)', async () => {
    const { server } = await serving();
    const silent = await rawConnection(server);
    const half = await rawConnection(server, 'GET /runs HTTP/1.1\r\nHost: x\r\n');
    try {
      expect(await within(closeServer(server), 3000)).toBe('closed');
      await Promise.all([silent.ended, half.ended]);
    } finally {
      silent.socket.destroy();
      half.socket.destroy();
    }
  });

  it('lets a request in flight finish with its whole answer, then ends its connection', async () => {
    const { server, port } = await serving(300);
    const taken = once(server, 'request');
    const answer = new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/', agent: false, headers: { connection: 'keep-alive' } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      });
      req.on('error', reject);
      req.end();
    });
    await taken;
    const closing = closeServer(server);
    // Connection: close, so a keep-alive client sends its next request elsewhere instead of on a socket about to end.
    expect(await answer).toEqual({ status: 200, body: 'answered', connection: 'close' });
    expect(await within(closing, 3000)).toBe('closed');
  });

  it('runs no request a kept-alive client sends after an answer that was under way at the close, and ends the connection', async () => {
    const ran: string[] = [];
    const server = createServer((req, res) => {
      ran.push(`${req.method} ${req.url}`);
      setTimeout(() => res.end('answered'), req.url === '/slow' ? 300 : 0);
    });
    trackConnections(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const conn = await rawConnection(server, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    let received = '';
    conn.socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.includes('answered')) {
        conn.socket.write('POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
      }
    });
    try {
      const closing = closeServer(server);
      await conn.ended;
      expect(await within(closing, 3000)).toBe('closed');
      expect(received.toLowerCase()).toContain('connection: close');
      expect(ran).toEqual(['GET /slow']);
    } finally {
      conn.socket.destroy();
    }
  });

  it('cuts what is left after the grace: an upload that stalled (the request time-out no longer runs)', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('stored'));
    });
    trackConnections(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const stalled = await rawConnection(server, 'POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"a"');
    try {
      const closing = closeServer(server, 500);
      expect(await within(closing, 250)).toBe('still waiting');
      expect(await within(closing, 3000)).toBe('closed');
      await stalled.ended;
    } finally {
      stalled.socket.destroy();
    }
  });

  it('ends a kept-alive connection that is between requests', async () => {
    const { server } = await serving();
    const kept = await rawConnection(server);
    const answered = new Promise<void>((resolve) => {
      let received = '';
      kept.socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        if (received.includes('answered')) {
          resolve();
        }
      });
    });
    kept.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await answered;
    try {
      expect(await within(closeServer(server), 3000)).toBe('closed');
      await kept.ended;
    } finally {
      kept.socket.destroy();
    }
  });
});
