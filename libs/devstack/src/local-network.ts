import { createServer } from 'node:net';

/** A TCP port free on loopback now (another process may take it before it is bound). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Whether something listens on `port` at `host` already (binding it fails with EADDRINUSE). */
export function portInUse(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(true) : reject(error)));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}

/** Polls `url` until it answers with one of `okStatuses`, or throws after `timeoutMs`. */
export async function waitFor(url: string, timeoutMs: number, okStatuses: number[] = [200]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (okStatuses.includes(res.status)) {
        return;
      }
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
