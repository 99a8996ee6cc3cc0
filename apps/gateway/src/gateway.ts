import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { upstreamFor, type Upstream } from './route';

export interface GatewayOptions {
  readonly upstreams: Record<Upstream, URL>;
}

/**
 * The local stand-in for the ingress: one base URL for clients. It streams bodies both ways without
 * buffering (SSE passes through as it is written) and answers a dead upstream with a problem.
 */
export function createGateway(options: GatewayOptions): Server {
  return createServer((req, res) => proxy(req, res, options.upstreams[upstreamFor(req.url ?? '/')]));
}

function proxy(req: IncomingMessage, res: ServerResponse, target: URL): void {
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.flushHeaders();
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) {
      const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : randomUUID();
      res.writeHead(503, { 'content-type': 'application/problem+json', 'x-request-id': requestId });
      res.end(
        JSON.stringify({
          type: 'urn:workload-run-service:problem:dependency_unavailable',
          title: 'A service this request depends on is unavailable.',
          status: 503,
          code: 'dependency_unavailable',
          requestId,
          retryable: true,
        }),
      );
    } else {
      res.destroy();
    }
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}
