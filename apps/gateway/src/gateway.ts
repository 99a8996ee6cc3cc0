import { createServer, request, type ClientRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { acceptableRequestId, answerClientErrorsWithProblems, PROBLEM_CONTENT_TYPE, problemBody } from '@wrs/problem';
import { upstreamFor, type Upstream } from './route';

export interface GatewayOptions {
  /** Replicas of each upstream; requests go round-robin, skipping one that refuses connections. */
  readonly upstreams: Record<Upstream, readonly URL[]>;
}

/**
 * The local stand-in for the ingress: one base URL for clients. It streams bodies both ways without
 * buffering (SSE passes through as it is written), spreads requests over replicas, and answers with a
 * problem when no replica of an upstream answers.
 */
export function createGateway(options: GatewayOptions): Server {
  const next: Record<Upstream, number> = { api: 0, relay: 0 };
  const server = createServer((req, res) => {
    const kind = upstreamFor(req.url ?? '/');
    const replicas = options.upstreams[kind];
    const start = next[kind]++ % replicas.length;
    const order = replicas.map((_, i) => replicas[(start + i) % replicas.length] as URL);
    const attempt: Attempt = { upstream: undefined };
    // One listener for every try: a client that goes away ends whichever upstream request is current.
    res.on('close', () => attempt.upstream?.destroy());
    proxy(req, res, attempt, order, order, Date.now() + RESTART_GRACE_MS);
  });
  answerClientErrorsWithProblems(server);
  return server;
}

/**
 * How long a GET waits for some replica to come back when all refuse connections (a restart): an
 * EventSource that gets a 5xx gives up for good, one whose reconnect is held a moment does not.
 */
const RESTART_GRACE_MS = 5000;

/** The upstream request of the current try at a client's request. */
interface Attempt {
  upstream: ClientRequest | undefined;
}

function proxy(req: IncomingMessage, res: ServerResponse, attempt: Attempt, candidates: URL[], all: URL[], deadline: number): void {
  if (res.destroyed) {
    return; // the client left while this request waited for a replica
  }
  const [target, ...rest] = candidates;
  if (!target) {
    const bodiless = req.method === 'GET' || req.method === 'HEAD';
    if (bodiless && Date.now() < deadline && !res.destroyed) {
      setTimeout(() => proxy(req, res, attempt, all, all, deadline), 200);
    } else {
      unavailable(req, res);
    }
    return;
  }
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
      // pipeline, not pipe: when the upstream dies mid-answer (a killed relay), the client's connection
      // must drop too, so an EventSource notices and reconnects instead of waiting forever.
      pipeline(answer, res, (error) => {
        if (error) {
          res.destroy();
        }
      });
    },
  );
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (res.headersSent) {
      res.destroy();
    } else if (error.code === 'ECONNREFUSED' && !req.readableDidRead) {
      // The replica is down and nothing of the request was sent: another replica can take it as it is.
      proxy(req, res, attempt, rest, all, deadline);
    } else {
      unavailable(req, res);
    }
  });
  attempt.upstream = upstream;
  req.pipe(upstream);
}

function unavailable(req: IncomingMessage, res: ServerResponse): void {
  const offered = req.headers['x-request-id'];
  const requestId = acceptableRequestId(typeof offered === 'string' ? offered : undefined);
  res.writeHead(503, { 'content-type': PROBLEM_CONTENT_TYPE, 'x-request-id': requestId, 'retry-after': '1' });
  res.end(JSON.stringify(problemBody('dependency_unavailable', requestId)));
}
