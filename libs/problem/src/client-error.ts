import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem-body';

/**
 * Requests Node's HTTP parser rejects before any handler runs (headers or URL too large, broken HTTP)
 * are answered as problems too, instead of Node's bare text.
 */
export function answerClientErrorsWithProblems(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const requestId = randomUUID();
    const body = JSON.stringify(problemBody(tooLarge ? 'request_header_fields_too_large' : 'bad_request', requestId));
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nX-Request-ID: ${requestId}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
