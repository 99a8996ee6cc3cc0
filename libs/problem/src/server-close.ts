import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Per server: its open connections, and how many requests each is serving now. */
interface Connections {
  readonly serving: Map<Socket, number>;
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
  const connections: Connections = { serving: new Map(), closing: false };
  tracked.set(server, connections);
  server.on('connection', (socket: Socket) => {
    connections.serving.set(socket, 0);
    socket.once('close', () => connections.serving.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    connections.serving.set(socket, (connections.serving.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = Math.max(0, (connections.serving.get(socket) ?? 1) - 1);
      if (connections.serving.has(socket)) {
        connections.serving.set(socket, left);
      }
      // Stopping: a connection ends with its last answer rather than waiting for another request.
      if (connections.closing && left === 0) {
        socket.end();
      }
    });
  });
}

/**
 * Stops listening and resolves once every connection has ended. Node's `server.close()` waits for all
 * of them and stops enforcing the header and request time-outs, so a client that connected and sent
 * nothing (a browser's preconnect, a socket whose peer vanished) or half a request kept the process
 * from exiting for good. Here those end at once; one serving a request ends after its answer.
 */
export function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve, reject) =>
    server.close((error) => (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING' ? reject(error) : resolve())),
  );
  const connections = tracked.get(server);
  if (connections) {
    connections.closing = true;
    for (const [socket, requests] of connections.serving) {
      if (requests === 0) {
        socket.destroy();
      }
    }
  }
  return closed;
}
