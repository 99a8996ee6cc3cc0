import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import type { Subscription } from './feed-event';
import { RunEventFeed } from './run-event-feed';
import { eventsOf } from './subscription-events.testing';

const log = (index: number): RunEvent => ({
  type: 'run.log',
  data: { index, stream: 'stdout', line: `line ${index}`, at: new Date().toISOString() },
});
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Reads a subscription into an array until it ends. */
function collect(subscription: Subscription): { seqs: number[]; done: Promise<void> } {
  const seqs: number[] = [];
  const done = (async () => {
    for await (const e of eventsOf(subscription)) {
      seqs.push(e.seq);
    }
  })();
  return { seqs, done };
}

async function waitUntil(probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) {
      throw new Error('timed out');
    }
    await sleep(20);
  }
}

async function waitUntilAsync(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) {
      throw new Error('timed out');
    }
    await sleep(50);
  }
}

describe('RunEventFeed against real JetStream: one live consumer per relay, exact for every follower', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let names: StreamNames;
  let store: RunEventStore;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    names = new StreamNames(env.namespace);
    jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
  });

  afterAll(async () => {
    await nc.close();
    await env.cleanup();
  });

  async function appendLogs(runId: string, from: number, to: number, version: number): Promise<{ version: number; seqs: number[] }> {
    const seqs: number[] = [];
    for (let i = from; i < to; i++) {
      version = await store.append('ws', runId, [log(i)], version, `l${i}`);
      seqs.push(version);
    }
    return { version, seqs };
  }

  const serverConsumers = async (): Promise<number> => (await jsm.streams.info(names.eventsStream)).state.consumer_count;

  it("serves 50 followers of a run from the relay's one consumer, each getting every later event once", async () => {
    const feed = new RunEventFeed(jetstream(nc), jsm, names);
    const runId = randomUUID();
    const before = await appendLogs(runId, 0, 3, 0);
    const consumersBefore = await serverConsumers();
    const followers = await Promise.all(Array.from({ length: 50 }, () => feed.follow('ws', runId, before.version)));
    const reads = followers.map(collect);
    expect(feed.followedRuns).toBe(1);
    expect(await serverConsumers()).toBe(consumersBefore + 1);
    // A second run followed on the same relay costs no consumer either.
    const other = randomUUID();
    const otherStart = await appendLogs(other, 0, 1, 0);
    const otherFollower = await feed.follow('ws', other, otherStart.version);
    expect(await serverConsumers()).toBe(consumersBefore + 1);
    const after = await appendLogs(runId, 3, 8, before.version);
    await waitUntil(() => reads.every((r) => r.seqs.length === after.seqs.length));
    await Promise.all([...followers, otherFollower].map((f) => f.close()));
    await Promise.all(reads.map((r) => r.done));
    for (const r of reads) {
      expect(r.seqs).toEqual(after.seqs);
    }
    expect(feed.followedRuns).toBe(0);
    await feed.close();
    // Gone from the server too, not left there for the client library's five-minute inactivity threshold.
    await waitUntilAsync(async () => (await serverConsumers()) === consumersBefore);
  });

  it('a first connection to a run created while the relay runs reads nothing itself, however far the run went', async () => {
    const feed = new RunEventFeed(jetstream(nc), jsm, names);
    const runId = randomUUID();
    await feed.known('ws', runId); // the relay is up: its firehose is open
    // The run moves on before anyone connects (as a worker dispatches a run within milliseconds).
    const created = await appendLogs(runId, 0, 3, 0);
    const known = await (async () => {
      for (;;) {
        const k = await feed.known('ws', runId);
        if (k?.seq === created.version) {
          return k;
        }
        await sleep(10);
      }
    })();
    expect(known).toMatchObject({ seq: created.version, previous: created.seqs[1] });
    const consumersBefore = await serverConsumers();
    const follower = await feed.follow('ws', runId, 0, known);
    expect(await serverConsumers()).toBe(consumersBefore);
    const read = collect(follower);
    const later = await appendLogs(runId, 3, 6, created.version);
    await waitUntil(() => read.seqs.length === 6);
    await follower.close();
    await read.done;
    expect(read.seqs).toEqual([...created.seqs, ...later.seqs]);
    await feed.close();
  });

  it('a first connection to a run created before the relay started gets its one event by one read, no consumer', async () => {
    const runId = randomUUID();
    const created = await appendLogs(runId, 0, 1, 0);
    const feed = new RunEventFeed(jetstream(nc), jsm, names);
    expect(await feed.known('ws', runId)).toBeUndefined();
    const last = await feed.last('ws', runId);
    const consumersBefore = await serverConsumers();
    const follower = await feed.follow('ws', runId, 0, last);
    expect(await serverConsumers()).toBe(consumersBefore);
    const read = collect(follower);
    await waitUntil(() => read.seqs.length === 1);
    await follower.close();
    await read.done;
    expect(read.seqs).toEqual(created.seqs);
    await feed.close();
  });

  it('an open follower keeps nothing of its catch-up once it has sent it (idle streams stay small)', async () => {
    const runId = randomUUID();
    await appendLogs(runId, 0, 1, 0);
    const feed = new RunEventFeed(jetstream(nc), jsm, names);
    const follower = await feed.follow('ws', runId, 0, await feed.last('ws', runId));
    const events = eventsOf(follower);
    const sent = new WeakRef((await events.next()).value as object);
    const waiting = events.next(); // for a live event that does not come
    await sleep(10);
    collectGarbage();
    await sleep(10);
    expect(sent.deref()).toBeUndefined();
    await follower.close();
    await waiting;
    await feed.close();
  });

  it('is exact when what the caller read is no longer the last event, or is not the only one it lacks', async () => {
    const feed = new RunEventFeed(jetstream(nc), jsm, names);
    const runId = randomUUID();
    const first = await appendLogs(runId, 0, 3, 0);
    const readEarly = await feed.last('ws', runId);
    const more = await appendLogs(runId, 3, 5, first.version);
    const all = [...first.seqs, ...more.seqs];
    // From the start (the read event names a previous one after 0), and from just before the read one.
    const followers = [await feed.follow('ws', runId, 0, readEarly), await feed.follow('ws', runId, first.seqs[1]!, readEarly)];
    const [fromStart, fromBeforeRead] = followers.map(collect) as [ReturnType<typeof collect>, ReturnType<typeof collect>];
    await waitUntil(() => fromStart.seqs.length === all.length && fromBeforeRead.seqs.length === all.length - 2);
    await Promise.all(followers.map((f) => f.close()));
    await Promise.all([fromStart.done, fromBeforeRead.done]);
    expect(fromStart.seqs).toEqual(all);
    expect(fromBeforeRead.seqs).toEqual(all.slice(2));
    await feed.close();
  });

  it('gives followers starting at the beginning, the middle and the head exactly their tails while the run goes on', async () => {
    const feed = new RunEventFeed(jetstream(nc), jsm, names);
    const runId = randomUUID();
    const first = await appendLogs(runId, 0, 20, 0);
    const head = await feed.follow('ws', runId, first.version);
    const headRead = collect(head);
    // Appending goes on while the others catch up from behind the tail.
    const appending = appendLogs(runId, 20, 40, first.version);
    const starts = [0, first.seqs[9]!, first.seqs[19]!];
    const others = await Promise.all(starts.map((after) => feed.follow('ws', runId, after)));
    const otherReads = others.map(collect);
    const rest = await appending;
    const all = [...first.seqs, ...rest.seqs];
    const tailAfter = (after: number): number[] => all.filter((seq) => seq > after);
    await waitUntil(
      () => otherReads.every((r, i) => r.seqs.length === tailAfter(starts[i]!).length) && headRead.seqs.length === rest.seqs.length,
    );
    await Promise.all([head, ...others].map((s) => s.close()));
    await Promise.all([headRead, ...otherReads].map((r) => r.done));
    expect(headRead.seqs).toEqual(rest.seqs);
    otherReads.forEach((r, i) => expect(r.seqs).toEqual(tailAfter(starts[i]!)));
    expect(feed.followedRuns).toBe(0);
    await feed.close();
  });

  it('ends a follower that lets more live events wait than it may (its client resumes), not the others', async () => {
    const feed = new RunEventFeed(jetstream(nc), jsm, names, undefined, 5);
    const runId = randomUUID();
    const start = await appendLogs(runId, 0, 1, 0);
    const reader = await feed.follow('ws', runId, start.version);
    const stalled = await feed.follow('ws', runId, start.version);
    const read = collect(reader);
    const after = await appendLogs(runId, 1, 12, start.version);
    await waitUntil(() => read.seqs.length === after.seqs.length);
    // The stalled follower kept the first five, then was ended: it yields those and stops.
    const stalledSeqs: number[] = [];
    for await (const e of eventsOf(stalled)) {
      stalledSeqs.push(e.seq);
    }
    expect(stalledSeqs).toEqual(after.seqs.slice(0, 5));
    expect(feed.followedRuns).toBe(1);
    await reader.close();
    await read.done;
    expect(read.seqs).toEqual(after.seqs);
    await stalled.close();
    expect(feed.followedRuns).toBe(0);
    await feed.close();
  });

  it('follows a run again after its last follower left', async () => {
    const feed = new RunEventFeed(jetstream(nc), jsm, names);
    const runId = randomUUID();
    const start = await appendLogs(runId, 0, 2, 0);
    const one = await feed.follow('ws', runId, 0);
    const oneRead = collect(one);
    await waitUntil(() => oneRead.seqs.length === 2);
    await one.close();
    await oneRead.done;
    expect(feed.followedRuns).toBe(0);
    const more = await appendLogs(runId, 2, 4, start.version);
    const two = await feed.follow('ws', runId, start.seqs[0]!);
    const twoRead = collect(two);
    await waitUntil(() => twoRead.seqs.length === 3);
    await two.close();
    await twoRead.done;
    expect(twoRead.seqs).toEqual([start.seqs[1]!, ...more.seqs]);
    await feed.close();
  });
});
