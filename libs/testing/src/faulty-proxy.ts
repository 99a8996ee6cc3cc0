import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  readonly method: string;
  /** Path and query, as the client sent them. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly at: number;
}

/** What the proxy does with one request. */
export type ProxyAction =
  | 'forward'
  /** Forwards it, lets the upstream answer in full, then cuts the client's connection: the answer is lost. */
  | 'lose-response'
  /** Answers itself, without asking the upstream. */
  | { readonly status: number; readonly headers: Record<string, string>; readonly body: string };

export interface FaultyProxy {
  /** The proxy's origin (http://127.0.0.1:port): put the upstream's path after it. */
  readonly origin: string;
  readonly requests: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP proxy in front of the stack (real sockets both ways, streams passed through as they come)
 * that can lose an answer or answer in the upstream's place, so a client's retry rules meet the faults
 * they exist for. `decide` sees each request and how many came before it.
 */
export async function startFaultyProxy(
  upstreamOrigin: string,
  decide: (request: ProxiedRequest, index: number) => ProxyAction = () => 'forward',
): Promise<FaultyProxy> {
  const upstream = new URL(upstreamOrigin);
  const requests: ProxiedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const seen: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, at: Date.now() };
    const action = decide(seen, requests.length);
    requests.push(seen);
    if (typeof action === 'object') {
      req.resume();
      res.writeHead(action.status, action.headers).end(action.body);
      return;
    }
    const outgoing = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: seen.method,
        path: seen.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        if (action === 'lose-response') {
          answer.resume();
          answer.once('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => req.socket.destroy());
    // The client went away (e.g. an event stream it stopped reading): stop the upstream request too.
    res.on('close', () => outgoing.destroy());
    req.pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
