import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { RunEvent } from '@wrs/domain';
import { describeNeeding, executableMissing, freePort, TcpProxy } from '@wrs/testing';
import { ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import type { FeedEvent } from './feed-event';
import { RunEventFeed } from './run-event-feed';
import { eventsOf } from './subscription-events.testing';

const NATS_SERVER = '/usr/sbin/nats-server';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const log = (index: number): RunEvent => ({
  type: 'run.log',
  data: { index, stream: 'stdout', line: `line ${index}`, at: new Date().toISOString() },
});

/**
 * Regression test for a chaos-run finding: an ordered consumer that lived through latency and a NATS
 * restart (kill -9) stopped delivering, so a relay stream sent heartbeats and never another event. The
 * feed now ends its subscriptions when the connection reconnects (the relay ends those streams and the
 * client resumes with Last-Event-ID on a fresh consumer). It needs a NATS server of its own to kill.
 */
describeNeeding(executableMissing(NATS_SERVER, 'apt-get install nats-server'))(
  'RunEventFeed across a NATS restart (own server, kill -9)',
  () => {
    let dir: string;
    let server: ChildProcess;
    let port: number;
    let proxy: TcpProxy;
    let nc: NatsConnection;

    const start = async (): Promise<void> => {
      server = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' });
      for (let i = 0; i < 100; i++) {
        if (await portOpen(port)) {
          return;
        }
        await sleep(50);
      }
      throw new Error('nats-server did not start');
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'wrs-feed-nats-'));
      port = await freePort();
      await start();
      proxy = new TcpProxy(port);
      await proxy.start();
      nc = await connect({ servers: `nats://127.0.0.1:${proxy.port}`, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    });

    afterAll(async () => {
      await nc.close();
      await proxy.close();
      server.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it('ends a subscription when the connection reconnects, and a new one from the last id gets every later event', async () => {
      const names = new StreamNames('feedrestart');
      const jsm = await jetstreamManager(nc);
      await ensureStreams(jsm, names);
      const js = jetstream(nc);
      const store = new RunEventStore(js, jsm, names);
      const feed = new RunEventFeed(js, jsm, names, nc);
      const runId = '3f0e4c52-8a43-4c39-9d0e-1f6a2b7c9d10';
      let version = await store.append('ws', runId, [log(0)], 0, 'e0');

      const first = await feed.follow('ws', runId, 0);
      const seen: number[] = [];
      const firstEnded = (async () => {
        for await (const e of eventsOf(first)) {
          seen.push(e.seq);
        }
      })();
      await waitUntil(() => seen.length === 1);

      proxy.setFault({ kind: 'latency', ms: 300 });
      await sleep(2000);
      proxy.setFault({ kind: 'none' });
      server.kill('SIGKILL');
      await sleep(1500);
      await start();
      // The stream ends by itself once the connection is back (the client would resume from here).
      await firstEnded;

      const appendNext = async (index: number): Promise<void> => {
        for (;;) {
          try {
            version = await store.append('ws', runId, [log(index)], version, `e${index}`);
            return;
          } catch {
            await sleep(200); // JetStream is still recovering its streams
          }
        }
      };
      await appendNext(1);
      const resumed = await feed.follow('ws', runId, seen[seen.length - 1]!);
      const after: FeedEvent[] = [];
      const reading = (async () => {
        for await (const e of eventsOf(resumed)) {
          after.push(e);
        }
      })();
      for (let i = 2; i <= 4; i++) {
        await sleep(300);
        await appendNext(i);
      }
      await waitUntil(() => after.length === 4);
      await resumed.close();
      await reading;
      expect([...seen, ...after.map((e) => e.seq)]).toEqual([1, 2, 3, 4, 5]);
    }, 60_000);

    it('after a black hole (no reconnect), a subscription delivers the events appended meanwhile or ends', async () => {
      const names = new StreamNames('feedhole');
      const direct = await connect({ servers: `nats://127.0.0.1:${port}` });
      try {
        const directJsm = await jetstreamManager(direct);
        await ensureStreams(directJsm, names);
        const store = new RunEventStore(jetstream(direct), directJsm, names);
        const feed = new RunEventFeed(jetstream(nc), await jetstreamManager(nc), names, nc);
        const runId = '9a1e4c52-8a43-4c39-9d0e-1f6a2b7c9d11';
        let version = await store.append('ws', runId, [log(0)], 0, 'h0');
        const subscription = await feed.follow('ws', runId, 0);
        const seen: number[] = [];
        let ended = false;
        const reading = (async () => {
          for await (const e of eventsOf(subscription)) {
            seen.push(e.seq);
          }
          ended = true;
        })();
        await waitUntil(() => seen.length === 1);
        proxy.setFault({ kind: 'blackhole' });
        await sleep(1000);
        version = await store.append('ws', runId, [log(1)], version, 'h1');
        await sleep(6000);
        proxy.setFault({ kind: 'none' });
        await waitUntil(() => seen.length === 2 || ended, 40_000);
        await subscription.close();
        await reading;
        expect(seen.length === 2 ? seen : 'ended').toEqual(seen.length === 2 ? [seen[0], version] : 'ended');
      } finally {
        await direct.close();
      }
    }, 60_000);
  },
);

async function waitUntil(probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) {
      throw new Error('timed out');
    }
    await sleep(50);
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(true));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  });
}
