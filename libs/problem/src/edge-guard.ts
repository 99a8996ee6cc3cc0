import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ANSWER_HEADERS } from './answer-headers';
import { PROBLEMS, type ProblemCode } from './catalogue';
import { endSocketWithProblem } from './client-error';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem-body';
import { acceptableRequestId } from './request-id';
import { trackConnections } from './server-close';

/** An answer given at the edge, before any route: one log line and one metric sample each. */
export interface EdgeAnswer {
  readonly status: number;
  readonly code: ProblemCode;
  readonly requestId: string;
  /** What happened, from a small fixed set (a metric label): see EdgeReason. */
  readonly reason: EdgeReason;
}

export type EdgeReason =
  | 'request_timeout'
  | 'headers_too_large'
  | 'parse_error'
  | 'missing_host'
  | 'duplicate_host'
  | 'unsupported_expect'
  | 'connect_method'
  | 'unexpected_body'
  | 'upstream_timeout'
  | 'upstream_unavailable';

export interface EdgeLimits {
  /** A client must have sent its request headers within this. */
  readonly headersTimeoutMs: number;
  /** ... and its whole request, body included (0: no bound; the headers bound still holds). */
  readonly requestTimeoutMs: number;
}

export interface EdgeGuardOptions extends EdgeLimits {
  readonly onAnswer: (answer: EdgeAnswer) => void;
}

/**
 * Answers as problems (and reports) what Node's HTTP server would answer on its own: parser failures and
 * smuggling attempts, slow clients (408), a missing Host, an unknown Expect and CONNECT.
 * Call it after the request listener is attached (Nest attaches its own when the app is created).
 */
export function guardHttpEdge(server: Server, options: EdgeGuardOptions): void {
  server.headersTimeout = options.headersTimeoutMs;
  server.requestTimeout = options.requestTimeoutMs;
  // Node enforces those timeouts only every connectionsCheckingInterval (30 s by default), so it is
  // shortened. Nest passes no server options, so both are set on the server object (untyped in @types/node).
  const tunable = server as Server & { connectionsCheckingInterval: number; requireHostHeader: boolean };
  const shortest = Math.min(options.headersTimeoutMs, options.requestTimeoutMs || options.headersTimeoutMs);
  tunable.connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(shortest / 4)));
  // Node's own check answers a bare 400; ours below answers a problem.
  tunable.requireHostHeader = false;

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // An answer already (partly) written on this socket cannot be followed by another: Node's own
    // handler checks the same (a request timeout after a 200 to an unread body wrote a second answer).
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [code, reason] = clientErrorCode(error);
    answerOnSocket(socket, code, reason, undefined, options);
  });

  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    answerAtEdge(req, res, 'expectation_failed', 'unsupported_expect', options, { connection: 'close' });
  });

  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // A reverse proxy is no tunnel: CONNECT names no resource of this service.
    socket.on('error', () => socket.destroy());
    answerOnSocket(socket, 'method_not_allowed', 'connect_method', offeredId(req), options, { Allow: 'GET, HEAD, POST' });
  });

  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.host === undefined && req.httpVersion === '1.1') {
      // RFC 9112 3.2: a 1.1 request without Host is a 400; nothing downstream may guess the authority.
      answerAtEdge(req, res, 'bad_request', 'missing_host', options, { connection: 'close' });
      return;
    }
    if (hostLines(req.rawHeaders) > 1) {
      // RFC 9112 3.2 again: two Host lines are a 400. Node keeps the first and drops the other, so a
      // proxy in front that read the second would route by an authority this service never saw.
      answerAtEdge(req, res, 'bad_request', 'duplicate_host', options, { connection: 'close' });
      return;
    }
    for (const listener of listeners) {
      listener(req, res);
    }
  });
  // Which connections hold a request, so that closeServer can end the others at once; after the
  // request listener above, so it counts the requests this guard answers itself too.
  trackConnections(server);
}

function hostLines(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'host') {
      count++;
    }
  }
  return count;
}

function clientErrorCode(error: NodeJS.ErrnoException): [ProblemCode, EdgeReason] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return ['request_timeout', 'request_timeout'];
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return ['request_header_fields_too_large', 'headers_too_large'];
  }
  // Every other parser error: broken HTTP, CL+TE or two lengths (smuggling attempts), bad chunking.
  return ['bad_request', 'parse_error'];
}

function offeredId(req: IncomingMessage): string | undefined {
  const offered = req.headers['x-request-id'];
  return typeof offered === 'string' ? offered : undefined;
}

function answerOnSocket(
  socket: Duplex,
  code: ProblemCode,
  reason: EdgeReason,
  offered: string | undefined,
  options: EdgeGuardOptions,
  headers: Record<string, string> = {},
): void {
  const requestId = offered ? acceptableRequestId(offered) : randomUUID();
  endSocketWithProblem(socket, code, requestId, headers);
  options.onAnswer({ status: PROBLEMS[code].status, code, requestId, reason });
}

/** A problem on a response object, reported the same way. */
export function answerAtEdge(
  req: IncomingMessage,
  res: ServerResponse,
  code: ProblemCode,
  reason: EdgeReason,
  options: Pick<EdgeGuardOptions, 'onAnswer'>,
  headers: Record<string, string> = {},
): void {
  const requestId = acceptableRequestId(offeredId(req));
  const status = PROBLEMS[code].status;
  // Answered before the request finished arriving: the rest of it would be read as the next request.
  const close = req.complete ? {} : { connection: 'close' };
  // Given before any middleware: the headers every answer carries are set here.
  res.writeHead(status, { ...ANSWER_HEADERS, ...headers, ...close, 'content-type': PROBLEM_CONTENT_TYPE, 'x-request-id': requestId });
  res.end(JSON.stringify(problemBody(code, requestId)));
  // The body of a refused request is not read: with Connection: close Node ends the socket after the answer.
  req.resume();
  options.onAnswer({ status, code, requestId, reason });
}

/** The edge settings of a service that serves HTTP itself (api, stream-relay), from its configuration. */
export interface ServiceEdgeSettings extends EdgeLimits {
  /** Express `trust proxy`: the hops whose X-Forwarded-For is believed (TRUSTED_PROXIES). */
  readonly trustedProxies: string;
}

export const DEFAULT_SERVICE_EDGE: ServiceEdgeSettings = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, trustedProxies: 'loopback' };
