import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createGateway } from './gateway';

/** Opens a raw connection and resolves once it is established (or fails to be). */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends GET /api/v1/version on `socket` and resolves with the answer's head, or '' when the connection ends without one. */
function ask(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString('latin1');
      if (got.includes('\r\n\r\n')) {
        resolve(got);
      }
    });
    socket.once('close', () => resolve(got));
    socket.once('error', () => resolve(got));
    socket.write('GET /api/v1/version HTTP/1.1\r\nHost: edge\r\n\r\n');
  });
}

/** A client over the gateway's connection cap is dropped without an answer; one under it is served, and room frees when a connection ends. */
describe('gateway connection cap', () => {
  let upstream: Server;
  let gateway: Server;
  let port: number;
  const held: Socket[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    gateway = createGateway({ upstreams: { api: [url], relay: [url] }, limits: { maxConnections: 2 } });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    port = (gateway.address() as AddressInfo).port;
  });

  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    gateway.closeAllConnections();
    await new Promise((resolve) => gateway.close(resolve));
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('drops the connection over the cap at once, and serves again once one of the others has gone', async () => {
    held.push(await open(port), await open(port));
    expect(await ask(held[0]!)).toMatch(/^HTTP\/1\.1 200/);

    const over = await open(port);
    expect(await ask(over)).toBe('');

    held[1]!.destroy();
    // The server counts a connection gone once its close has been handled: ask until there is room.
    let answer = '';
    for (let tries = 0; tries < 50 && answer === ''; tries++) {
      answer = await ask(await open(port));
    }
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
  });
});
