import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { makeTestTls } from './fake-kubernetes/test-ca';

export interface ReceivedWebhook {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * How the receiver answers one request: `ok` (204), a status, `hang` (never answers), `redirect`
 * (302 to /elsewhere), `endless` (200 with a body that never ends).
 */
export type ReceiverAnswer = 'ok' | 'hang' | 'redirect' | 'endless' | number;

export interface WebhookReceiver {
  /** `https://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  /** The CA that signed the receiver's certificate (for 127.0.0.1 and localhost). */
  readonly caCertificate: string;
  readonly received: ReceivedWebhook[];
  /** Chooses the answer to each request; `ok` unless set. */
  answer: (request: ReceivedWebhook) => ReceiverAnswer;
  close(): Promise<void>;
}

/** A real HTTPS webhook receiver on loopback that records every request and answers as told. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const tls = makeTestTls();
  const sockets = new Set<Socket>();
  const receiver: WebhookReceiver = {
    origin: '',
    port: 0,
    caCertificate: tls.caCertificate,
    received: [],
    answer: () => 'ok',
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer({ cert: tls.serverCertificate, key: tls.serverKey }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.received.push(request);
      respond(res, receiver.answer(request));
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, { port, origin: `https://127.0.0.1:${port}` });
}

function respond(res: ServerResponse, answer: ReceiverAnswer): void {
  if (answer === 'hang') {
    return;
  }
  if (answer === 'redirect') {
    res.writeHead(302, { location: '/elsewhere' }).end();
    return;
  }
  if (answer === 'endless') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const write = (): void => {
      while (!res.destroyed && res.write(chunk)) {
        // Until the socket's buffer is full; then again once it drains.
      }
      if (!res.destroyed) {
        res.once('drain', write);
      }
    };
    write();
    return;
  }
  res.writeHead(answer === 'ok' ? 204 : answer).end();
}
