import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { parseAnnouncement } from '@wrs/observability';
import { patience } from '@wrs/testing';

const GATEWAY = join(__dirname, '..', '..', '..', 'dist', 'apps', 'gateway', 'src', 'main.js');

/**
 * The built gateway at a log level, sent one request without `Host` (refused at its edge, a warning in
 * its log), then stopped: everything it logged, flushed by its exit.
 */
async function gatewayOutput(logLevel: string): Promise<string> {
  // No upstream is reached: the request is refused before routing (port 9, discard, is never listened on here).
  const upstream = 'http://127.0.0.1:9';
  const child = spawn(process.execPath, [GATEWAY], {
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', API_UPSTREAM: upstream, RELAY_UPSTREAM: upstream, LOG_LEVEL: logLevel },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  // 'close', not 'exit': the output read to its end.
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  try {
    // The port it took, from its announcement (PORT=0: no port picked ahead that another could take).
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the gateway did not start: ${output}`)), patience(15_000));
      child.stdout.on('data', () => {
        const url = output
          .split('\n')
          .map((line) => parseAnnouncement(line)?.url)
          .find(Boolean);
        if (url) {
          clearTimeout(timer);
          resolve(Number(new URL(url).port));
        }
      });
    });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /api/v1/version HTTP/1.1\r\n\r\n'));
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await closed).toBe(0);
  return output;
}

describe('the gateway log level (LOG_LEVEL, as every service)', () => {
  it('logs its edge refusals at warn, and not at LOG_LEVEL=error', async () => {
    expect(await gatewayOutput('warn')).toContain('"msg":"edge answer"');
    expect(await gatewayOutput('error')).not.toContain('"msg":"edge answer"');
  });
});
