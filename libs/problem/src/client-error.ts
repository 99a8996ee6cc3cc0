import type { Duplex } from 'node:stream';
import { ANSWER_HEADERS } from './answer-headers';
import { PROBLEMS, type ProblemCode } from './catalogue';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem-body';

/** Reason phrases of the statuses answered on a raw socket (the reason is informative only). */
const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

/**
 * Writes a problem straight to a socket where Node has no response object (parser refusal, timeout,
 * CONNECT), then closes it, since the rest of the stream can't be trusted. It adds ANSWER_HEADERS itself.
 */
export function endSocketWithProblem(socket: Duplex, code: ProblemCode, requestId: string, headers: Record<string, string> = {}): void {
  const status = PROBLEMS[code].status;
  const body = JSON.stringify(problemBody(code, requestId));
  const extra = Object.entries({ ...ANSWER_HEADERS, ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nX-Request-ID: ${requestId}\r\n` +
      `${extra}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
