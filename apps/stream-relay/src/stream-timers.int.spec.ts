import { randomUUID } from 'node:crypto';
import { get, type ClientRequest } from 'node:http';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { RunEvent } from '@wrs/domain';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, patience, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startTestRelay, type TestRelay } from './test-relay.testing';
import { RunEventsController } from './run-events.controller';

const at = '2026-11-21T10:00:00.000Z';
const created = (runId: string): RunEvent => ({
  type: 'run.created',
  data: { runId, workspaceId: 'ws-a', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at },
});

/** One raw SSE connection: what it has read so far, whether the server ended it, and a hang-up. */
interface OpenStream {
  readonly heartbeats: () => number;
  readonly text: () => string;
  readonly ended: Promise<void>;
  hangUp(): void;
}

async function waitUntil(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + patience(20_000);
  while (!probe()) {
    if (Date.now() > deadline) {
      throw new Error(`waited in vain for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The relay's streams share one heartbeat timer and one deadline timer: every open stream still gets
 * its heartbeats and ends at its maximum duration, and a stream that ends, whoever ends it, leaves both.
 * Waits are bounded; nothing is timed.
 */
describe('one heartbeat timer and one deadline timer for all of a relay’s streams', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-a');
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RunEventStore;
  let app: NestExpressApplication;
  let relay: TestRelay;
  let base: string;
  let controller: RunEventsController;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    nc = await connectNats(env.natsUrl, 'test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    relay = await startTestRelay(env, publicKeyFile, {
      SSE_HEARTBEAT_MS: '1000',
      SSE_MAX_DURATION_SECONDS: String(Math.round(patience(8))),
    });
    ({ app, base } = relay);
    controller = app.get(RunEventsController);
  });

  afterAll(async () => {
    await relay.close();
    await nc.close();
    await env.cleanup();
  });

  async function openRun(): Promise<string> {
    const runId = randomUUID();
    await store.append('ws-a', runId, [created(runId)], 0, `c-${runId}`);
    return runId;
  }

  function open(runId: string): Promise<OpenStream> {
    return new Promise((resolve, reject) => {
      let text = '';
      let request: ClientRequest | undefined = undefined;
      request = get(`${base}/runs/${runId}/events`, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`status ${res.statusCode}`));
          return;
        }
        res.setEncoding('utf8');
        const ended = new Promise<void>((done) => {
          res.on('end', done);
          res.on('error', () => done());
          res.on('close', done);
        });
        res.on('data', (chunk: string) => (text += chunk));
        resolve({
          heartbeats: () => text.split(': heartbeat\n\n').length - 1,
          text: () => text,
          ended,
          hangUp: () => request?.destroy(),
        });
      });
      request.on('error', () => undefined);
    });
  }

  it('writes heartbeats to each of several streams, and drops a hung-up one from the heartbeat set', async () => {
    const runId = await openRun();
    const streams = await Promise.all([open(runId), open(runId), open(runId)]);
    await waitUntil('the three streams to be open', () => streams.every((s) => s.text().includes('event: run.created')));
    expect(controller.heartbeats.size).toBe(3);
    expect(controller.heartbeats.ticking).toBe(true);
    await waitUntil('two heartbeats on every stream', () => streams.every((s) => s.heartbeats() >= 2));

    const [gone, ...kept] = streams as [OpenStream, OpenStream, OpenStream];
    gone.hangUp();
    await waitUntil('the hung-up stream to leave the heartbeat set', () => controller.heartbeats.size === 2);
    expect(controller.deadlines.size).toBe(2);
    // The others still get theirs after the hang-up.
    const seen = kept.map((s) => s.heartbeats());
    await waitUntil('a further heartbeat on each stream left', () => kept.every((s, i) => s.heartbeats() > seen[i]!));

    kept.forEach((s) => s.hangUp());
    await waitUntil('every stream to leave the heartbeat set', () => controller.heartbeats.size === 0);
    expect(controller.heartbeats.ticking).toBe(false);
    expect(controller.deadlines.size).toBe(0);
  });

  it('ends each of several streams opened at different times at its maximum duration, through one timer', async () => {
    const runId = await openRun();
    const first = await open(runId);
    await waitUntil('the first stream to be open', () => first.text().includes('event: run.created'));
    // The second opens a heartbeat later than the first: they fall due in that order.
    await waitUntil('a heartbeat on the first', () => first.heartbeats() >= 1);
    const second = await open(runId);
    await waitUntil('the second stream to be open', () => second.text().includes('event: run.created'));
    expect(controller.deadlines.size).toBe(2);
    const order: string[] = [];
    await Promise.all([first.ended.then(() => order.push('first')), second.ended.then(() => order.push('second'))]);
    expect(order).toEqual(['first', 'second']);
    await waitUntil('both streams to leave the deadline set', () => controller.deadlines.size === 0);
    // Ended by the server at their deadline: the stream is over, no credential comment, no error.
    expect(first.text()).not.toContain(': end ');
    expect(second.text()).not.toContain(': end ');
    expect(controller.heartbeats.size).toBe(0);
  });
});
