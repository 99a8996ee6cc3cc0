import { connect, type Socket } from 'node:net';
import { patience } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

/** A connection that sends nothing, or only `text`: a browser's preconnect, a peer gone without a word. */
async function quietConnection(port: number, text = ''): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  if (text) {
    socket.write(text);
  }
  return socket;
}

describe('services stopping while clients hold connections that carry no request', () => {
  let f: StackFixture;
  const held: Socket[] = [];

  beforeAll(async () => {
    f = await startStack(['ws-stop']);
  });

  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    await f?.stop();
  });

  // Node's server.close() waits for every connection and stops the header time-outs: before, one silent
  // socket kept a service from exiting for good (a bench's relay hung for 15 minutes on 23 of them).
  it.each(['api', 'stream-relay', 'run-worker', 'gateway'] as const)(
    '%s exits on SIGTERM at once, with a silent and a half-sent connection on each of its ports',
    async (service) => {
      const ports = [f.stack.portOf(service), f.stack.metricsPortOf(service)].filter((port): port is number => port !== undefined);
      expect(ports.length).toBeGreaterThan(0);
      for (const port of ports) {
        held.push(await quietConnection(port), await quietConnection(port, 'GET /api/v1/version HTTP/1.1\r\nHost: x\r\n'));
      }
      // A moment for the service to accept them and read what they sent.
      await new Promise((r) => setTimeout(r, 200));
      const child = f.stack.processes.get(service)!;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), patience(10_000))));
      child.kill('SIGTERM');
      try {
        expect(await Promise.race([exited, waited])).toBe(0);
      } finally {
        clearTimeout(timer);
        // One that did not stop must not outlive the suite (the fixture's SIGTERM would not move it either).
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
        }
      }
    },
  );
});
