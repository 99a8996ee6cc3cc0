import { createServer } from 'node:net';
import WebSocket from 'ws';

/** How long one inspector call may take (a full collection of a large heap takes seconds). */
const INSPECTOR_PATIENCE_MS = 60_000;

/**
 * A Node process's JavaScript heap and external memory after a full garbage collection, read through
 * its inspector: SIGUSR1 opens the inspector on the `--inspect-port` it was started with (the bench
 * gives the relay and the bare SSE server one each), then `HeapProfiler.collectGarbage` and
 * `process.memoryUsage()`. RSS growth without a collection measured nothing (a warm process's RSS can
 * fall while streams open); this is what a stream's objects and buffers hold once garbage is gone.
 */
export async function heapAfterCollection(pid: number, inspectPort: number): Promise<number> {
  const url = await debuggerUrl(pid, inspectPort);
  const socket = new WebSocket(url, { handshakeTimeout: INSPECTOR_PATIENCE_MS });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  try {
    let next = 0;
    const call = (method: string, params: object = {}): Promise<{ result?: { result?: { value?: unknown } } }> =>
      new Promise((resolve, reject) => {
        const id = ++next;
        // An inspector that never answers must fail the reading, not hang the bench.
        const failed = (why: string): void => {
          clearTimeout(timer);
          socket.off('message', onMessage);
          socket.off('close', onClose);
          reject(new Error(`${method}: process ${pid} ${why}`));
        };
        const timer = setTimeout(() => failed(`did not answer within ${INSPECTOR_PATIENCE_MS / 1000} s`), INSPECTOR_PATIENCE_MS);
        const onClose = (): void => failed('closed its inspector before answering');
        const onMessage = (data: WebSocket.RawData): void => {
          const message = JSON.parse(data.toString()) as { id?: number; error?: { message: string } };
          if (message.id === id) {
            clearTimeout(timer);
            socket.off('message', onMessage);
            socket.off('close', onClose);
            if (message.error) {
              reject(new Error(`${method}: ${message.error.message}`));
            } else {
              resolve(message as { result?: { result?: { value?: unknown } } });
            }
          }
        };
        socket.on('message', onMessage);
        socket.once('close', onClose);
        socket.send(JSON.stringify({ id, method, params }), (error) => error && failed(`refused the call: ${error.message}`));
      });
    await call('HeapProfiler.collectGarbage');
    const usage = await call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    });
    const { heapUsed, external } = JSON.parse(String(usage.result?.result?.value)) as { heapUsed: number; external: number };
    return heapUsed + external;
  } finally {
    socket.close();
  }
}

const opened = new Set<number>();

/** Opens the process's inspector once (SIGUSR1) and waits until it lists its target. */
async function debuggerUrl(pid: number, port: number): Promise<string> {
  if (!opened.has(pid)) {
    process.kill(pid, 'SIGUSR1');
    opened.add(pid);
  }
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const listed = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(2_000) });
      const targets = (await listed.json()) as { webSocketDebuggerUrl?: string }[];
      const url = targets[0]?.webSocketDebuggerUrl;
      if (url) {
        return url;
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`process ${pid} did not open its inspector on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A port free now on 127.0.0.1, for a process's `--inspect-port`. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
