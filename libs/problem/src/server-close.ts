import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long answers under way may take once a server is closing, before every connection is cut: a
 * bound, where there was none, that leaves room for the 5 s readiness drain inside Kubernetes' default
 * 30 s grace. Streams cut here resume elsewhere with Last-Event-ID; the api's `Prefer: wait`s answer
 * as the close begins (RunWaits), so none is left to cut.
 */
export const CLOSE_GRACE_MS = 20_000;

/** Per server: its open connections, the answers under way on each, and whether it is closing. */
interface Connections {
  readonly answering: Map<Socket, Set<ServerResponse>>;
  closing: boolean;
}

const tracked = new WeakMap<Server, Connections>();

/**
 * Keeps, for `closeServer`, which of the server's connections hold a request. Call it once, when the
 * server is made (the edge guard does).
 */
export function trackConnections(server: Server): void {
  if (tracked.has(server)) {
    return;
  }
  const connections: Connections = { answering: new Map(), closing: false };
  tracked.set(server, connections);
  server.on('connection', (socket: Socket) => {
    connections.answering.set(socket, new Set());
    socket.once('close', () => connections.answering.delete(socket));
  });
  // First among the request listeners, so an answer written at once (the edge guard's) is already
  // told not to keep the connection alive once the server is closing.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const answers = connections.answering.get(req.socket);
    answers?.add(res);
    if (connections.closing) {
      // Node then answers with `Connection: close` and ends the connection after this answer.
      res.shouldKeepAlive = false;
    }
    res.once('close', () => {
      answers?.delete(res);
      if (connections.closing) {
        // An answer under way at the close whose headers had gone out as keep-alive: its connection is
        // idle now. Node skips a connection whose next request has begun.
        server.closeIdleConnections();
      }
    });
  });
}

/**
 * Stops listening and resolves once every connection has ended. Node's `server.close()` waits for all
 * of them and stops enforcing the header and request time-outs, so a client that connected and sent
 * nothing (a browser's preconnect, a socket whose peer vanished) or half its headers kept the process
 * from exiting for good. Here those end at once; one with an answer under way ends after it (with
 * `Connection: close` where the answer had not started), and whatever is left `graceMs` after this
 * call is cut.
 */
export function closeServer(server: Server, graceMs = CLOSE_GRACE_MS): Promise<void> {
  let cut: NodeJS.Timeout | undefined;
  const closed = new Promise<void>((resolve, reject) =>
    server.close((error) => {
      clearTimeout(cut);
      if (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') {
        reject(error);
      } else {
        resolve();
      }
    }),
  );
  const connections = tracked.get(server);
  if (connections && !connections.closing) {
    connections.closing = true;
    for (const [socket, answers] of connections.answering) {
      if (answers.size === 0) {
        socket.destroy();
      }
      answers.forEach((res) => {
        if (!res.headersSent) {
          res.shouldKeepAlive = false;
        }
      });
    }
  }
  cut = setTimeout(() => server.closeAllConnections(), graceMs);
  cut.unref();
  return closed;
}
