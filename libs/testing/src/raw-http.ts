import { connect, type Socket } from 'node:net';
import type { ObservedResponse } from './contract-validator';
import { contractValidator } from './contract-client';

/** One answer read off a raw socket, in the shape the contract validator checks. */
export interface RawAnswer extends ObservedResponse {
  readonly statusLine: string;
}

/**
 * A raw TCP client for what fetch cannot send: broken or hostile HTTP/1.1 (no Host, CONNECT, both
 * Content-Length and Transfer-Encoding, a body that stops half way), several requests on one socket.
 */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private closedFlag = false;
  private readonly waiters: (() => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    socket.on('error', () => undefined); // a reset is one of the outcomes a test looks at
    socket.on('close', () => {
      this.closedFlag = true;
      this.wake();
    });
  }

  static open(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host);
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next complete answer, or undefined if the connection closes (or the wait ends) first. */
  async nextAnswer(waitMs: number): Promise<RawAnswer | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const parsed = parseAnswer(this.buffer);
      if (parsed) {
        this.buffer = this.buffer.subarray(parsed.length);
        return parsed.answer;
      }
      if (this.closedFlag || Date.now() >= deadline) {
        return undefined;
      }
      await this.changeOrTimeout(deadline - Date.now());
    }
  }

  /** Until the server closes the connection (true) or the wait ends (false). */
  async waitClosed(waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    while (!this.closedFlag && Date.now() < deadline) {
      await this.changeOrTimeout(deadline - Date.now());
    }
    return this.closedFlag;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private changeOrTimeout(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    this.waiters.splice(0).forEach((w) => w());
  }
}

/** One request over a fresh connection: its first answer (undefined: none before closing or the wait). */
export async function rawExchange(
  port: number,
  request: string | Buffer,
  waitMs: number,
): Promise<{ answer?: RawAnswer; connection: RawConnection }> {
  const connection = await RawConnection.open(port);
  connection.write(request);
  return { answer: await connection.nextAnswer(waitMs), connection };
}

/** A raw answer checked against the contract, as ContractClient checks fetch's. */
export function assertRawAnswerInContract(method: string, template: string, answer: RawAnswer): void {
  contractValidator().assertResponse(method, template, answer);
}

function parseAnswer(buffer: Buffer): { answer: RawAnswer; length: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd < 0) {
    return undefined;
  }
  const lines = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const statusLine = lines[0] ?? '';
  const status = Number(statusLine.split(' ')[1]);
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let offset = headEnd + 4;
  let body: Buffer;
  if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) {
    const parts: Buffer[] = [];
    for (;;) {
      const sizeEnd = buffer.indexOf('\r\n', offset);
      if (sizeEnd < 0) {
        return undefined;
      }
      const size = parseInt(buffer.subarray(offset, sizeEnd).toString('latin1'), 16);
      if (buffer.length < sizeEnd + 2 + size + 2) {
        return undefined;
      }
      parts.push(buffer.subarray(sizeEnd + 2, sizeEnd + 2 + size));
      offset = sizeEnd + 2 + size + 2;
      if (size === 0) {
        break;
      }
    }
    body = Buffer.concat(parts);
  } else {
    const length = Number(headers.get('content-length') ?? '0');
    if (buffer.length < offset + length) {
      return undefined;
    }
    body = buffer.subarray(offset, offset + length);
    offset += length;
  }
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { answer: { statusLine, status, headers, text, body: json }, length: offset };
}
