import { request } from 'node:http';

export interface EngineResponse {
  readonly status: number;
  readonly body: Buffer;
}

/** The Docker Engine API (Docker, or Podman's compatible service) over its unix socket. */
export class EngineClient {
  constructor(
    private readonly socketPath: string,
    private readonly timeoutMs = 10_000,
  ) {}

  call(method: string, path: string, body?: unknown): Promise<EngineResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        {
          socketPath: this.socketPath,
          method,
          path: `/v1.41${path}`,
          headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`container engine did not answer ${method} ${path} within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
}

/** Splits the engine's multiplexed log stream (8-byte frame headers) into lines per stream. */
export function demultiplexLogs(raw: Buffer): { stream: 'stdout' | 'stderr'; line: string }[] {
  const lines: { stream: 'stdout' | 'stderr'; line: string }[] = [];
  const partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  let offset = 0;
  while (offset + 8 <= raw.length) {
    const stream = raw[offset] === 2 ? 'stderr' : 'stdout';
    const size = raw.readUInt32BE(offset + 4);
    partial[stream] += raw.subarray(offset + 8, offset + 8 + size).toString('utf8');
    offset += 8 + size;
    const parts = partial[stream].split('\n');
    partial[stream] = parts.pop() ?? '';
    parts.forEach((line) => lines.push({ stream, line }));
  }
  for (const stream of ['stdout', 'stderr'] as const) {
    if (partial[stream]) {
      lines.push({ stream, line: partial[stream] });
    }
  }
  return lines;
}
