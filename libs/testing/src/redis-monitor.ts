import { connect, type Socket } from 'node:net';

export interface RedisMonitor {
  /** Each command Redis has reported so far, as its arguments joined by spaces ("sismember key member"). */
  readonly seen: string[];
  close(): void;
}

/**
 * Redis's MONITOR over a plain socket. ioredis's own monitor() flips into monitoring a microtask after
 * the +OK, so lines that arrive in the same read as the +OK break its command queue on a busy server.
 */
export function monitorRedis(url: string): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port || 6379) });
  const seen: string[] = [];
  let buffered = '';
  return new Promise((resolve, reject) => {
    let ready = false;
    socket.on('error', reject);
    socket.on('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!ready) {
          if (line !== '+OK') {
            reject(new Error(`MONITOR answered ${line}`));
            return;
          }
          ready = true;
          resolve({ seen, close: () => socket.destroy() });
          continue;
        }
        seen.push(commandOf(line));
      }
    });
  });
}

/** `+1700000000.1 [0 127.0.0.1:5000] "sismember" "k" "m"` -> `sismember k m`. */
function commandOf(line: string): string {
  const args = line.slice(line.indexOf('] ') + 2).match(/"((?:[^"\\]|\\.)*)"/g) ?? [];
  return args.map((quoted) => quoted.slice(1, -1)).join(' ');
}
