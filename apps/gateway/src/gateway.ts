import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import { answerAtEdge, guardHttpEdge, type EdgeAnswer } from '@wrs/problem';
import { withoutHopByHop } from './hop-by-hop';
import { upstreamFor, type Upstream } from './route';

export interface GatewayOptions {
  /** Replicas of each upstream; requests go round-robin, skipping one that refuses connections. */
  readonly upstreams: Record<Upstream, readonly URL[]>;
  /** Bounds of the edge; every wait has one. */
  readonly limits?: Partial<GatewayLimits>;
  /** Told of every problem the gateway answers itself (a log line and a metric in main.ts). */
  readonly onEdgeAnswer?: (answer: EdgeAnswer) => void;
}

export interface GatewayLimits {
  /** A client must have sent its headers within this (408 `request_timeout` past it). */
  readonly headersTimeoutMs: number;
  /** ... and its whole request, body included. */
  readonly requestTimeoutMs: number;
  /** A socket with nothing moving either way is closed; event streams send heartbeats well within it. */
  readonly idleTimeoutMs: number;
  /** An upstream that sends nothing for this long is given up (before an answer: 504; a stream is cut). */
  readonly upstreamIdleTimeoutMs: number;
  readonly maxConnections: number;
  /**
   * How long a bodiless request waits for some replica to come back when all refuse connections (a
   * restart): an EventSource that gets a 5xx gives up for good, one whose reconnect is held a moment does not.
   */
  readonly restartGraceMs: number;
}

const DEFAULT_LIMITS: GatewayLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 120_000,
  upstreamIdleTimeoutMs: 60_000,
  maxConnections: 10_000,
  restartGraceMs: 5000,
};

/** Tries of one request in all: http-proxy-3 adds a listener to the request and the answer per try. */
const MAX_TRIES = 30;
/** The shortest pause before trying every replica again. */
const MIN_ROUND_PAUSE_MS = 200;

/**
 * Pause between rounds, sized so MAX_TRIES rounds span the whole grace. A fixed 200 ms ran out after 3 s
 * of a 5 s grace, and a relay restart on a busy machine (about 3.5 s) gave clients a 503.
 */
export function roundPauseMs(replicas: number, graceMs: number): number {
  const rounds = Math.max(1, Math.floor(MAX_TRIES / Math.max(1, replicas)));
  return Math.max(MIN_ROUND_PAUSE_MS, Math.ceil(graceMs / Math.max(1, rounds - 1)));
}

/**
 * Local stand-in for the ingress: one base URL for clients. http-proxy-3 forwards; this file picks the
 * route, replica, allowed headers and limits. Answers are unbuffered so SSE passes through as written.
 */
export function createGateway(options: GatewayOptions): Server {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  // Upstream sockets are reused across clients: which is why no client's connection headers may reach them.
  // `timeout` also turns on Node's use of the upstream's Keep-Alive hint: without it an idle pooled
  // socket is kept until the upstream closes it (5 s), and a request sent in that moment meets the
  // close (ECONNRESET, a 503). With it the gateway retires an idle socket 1 s before the hint says.
  const agent = new Agent({ keepAlive: true, timeout: limits.upstreamIdleTimeoutMs });
  const proxy = createProxyServer({ agent, selfHandleResponse: true, proxyTimeout: limits.upstreamIdleTimeoutMs });
  proxy.on('proxyRes', (answer, req, res) => relayAnswer(answer, req, res));
  const edge = { onAnswer: options.onEdgeAnswer ?? (() => undefined) };
  // http-proxy-3 destroys an upstream request that stays silent for proxyTimeout and reports a plain
  // ECONNRESET: which requests timed out is remembered here, to answer them 504 rather than 503.
  const timedOut = new WeakSet<IncomingMessage>();
  proxy.on('proxyReq', (proxyReq, req) => proxyReq.once('timeout', () => timedOut.add(req)));
  const next: Record<Upstream, number> = { api: 0, relay: 0 };

  const forward = (req: IncomingMessage, res: ServerResponse, order: URL[], tried: number, deadline: number): void => {
    if (res.destroyed) {
      return; // the client left while this request waited for a replica
    }
    const target = order[tried % order.length] as URL;
    const roundDone = (n: number): boolean => (n + 1) % order.length === 0;
    proxy.web(req, res, { target }, (error: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
      } else if (
        error.code === 'ECONNREFUSED' &&
        isBodiless(req) &&
        tried + 1 < MAX_TRIES &&
        (!roundDone(tried) || Date.now() < deadline)
      ) {
        // Nothing of the request needs re-sending: the next replica, or after a pause the first again.
        // A round once begun tries every replica; the grace decides only whether another round begins.
        const pause = roundDone(tried)
          ? Math.min(roundPauseMs(order.length, limits.restartGraceMs), Math.max(0, deadline - Date.now()))
          : 0;
        setTimeout(() => forward(req, res, order, tried + 1, deadline), pause);
      } else if (timedOut.has(req)) {
        answerAtEdge(req, res, 'upstream_timeout', 'upstream_timeout', edge);
      } else {
        answerAtEdge(req, res, 'dependency_unavailable', 'upstream_unavailable', edge, { 'retry-after': '1' });
      }
    });
  };

  const server = createServer((req, res) => {
    if (carriesBody(req) && !BODY_METHODS.has(req.method ?? '')) {
      // Node's client sends a GET's, DELETE's or TRACE's body unframed (and http-proxy-3 gives a DELETE
      // Content-Length: 0): on a pooled upstream socket it would be read as the next client's request.
      answerAtEdge(req, res, 'bad_request', 'unexpected_body', edge);
      return;
    }
    const kind = upstreamFor(req.url ?? '/');
    const replicas = options.upstreams[kind];
    const start = next[kind]++ % replicas.length;
    const order = replicas.map((_, i) => replicas[(start + i) % replicas.length] as URL);
    req.headers = forwardedHeaders(req);
    req.setMaxListeners(MAX_TRIES + 10);
    res.setMaxListeners(MAX_TRIES + 10);
    forward(req, res, order, 0, Date.now() + limits.restartGraceMs);
  });
  server.maxConnections = limits.maxConnections;
  server.setTimeout(limits.idleTimeoutMs, (socket) => socket.destroy());
  // Parser errors (smuggling attempts included), slow clients (408), no Host, Expect, CONNECT: problems.
  guardHttpEdge(server, { headersTimeoutMs: limits.headersTimeoutMs, requestTimeoutMs: limits.requestTimeoutMs, onAnswer: edge.onAnswer });
  server.on('close', () => agent.destroy());
  return server;
}

/** The client's headers as the upstream may see them: no hop-by-hop ones, and X-Forwarded-* set here only. */
function forwardedHeaders(req: IncomingMessage): IncomingMessage['headers'] {
  const headers = withoutHopByHop(req.headers);
  for (const name of Object.keys(headers)) {
    // Expect was answered here (Node sends 100 Continue itself): the upstream must not wait for it again.
    if (name.startsWith('x-forwarded-') || name === 'forwarded' || name === 'expect') {
      delete headers[name];
    }
  }
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
  headers['x-forwarded-proto'] = 'http';
  if (req.headers.host) {
    headers['x-forwarded-host'] = req.headers.host;
  }
  return headers;
}

/**
 * Sends the upstream's answer without hop-by-hop headers. An early answer (a 413, say) closes both
 * connections so nothing is left half-read for the next request.
 */
function relayAnswer(answer: IncomingMessage, req: IncomingMessage, res: ServerResponse): void {
  const early = !req.complete;
  const headers = withoutHopByHop(answer.headers);
  if (early) {
    headers['connection'] = 'close';
  }
  res.writeHead(answer.statusCode ?? 502, headers);
  res.flushHeaders();
  // pipeline, not pipe: when the upstream dies mid-answer (a killed relay), the client's connection
  // must drop too, so an EventSource notices and reconnects instead of waiting forever.
  pipeline(answer, res, (error) => {
    if (error) {
      res.destroy();
    }
    if (early) {
      answer.socket?.destroy();
    }
  });
}

/** The methods whose requests the API gives a body; the upstream request frames theirs (chunked when no length). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** A body follows the headers: chunked, or a length above zero (Node has refused a request with both). */
function carriesBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function isBodiless(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && !req.headers['content-length'];
}
