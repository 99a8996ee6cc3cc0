import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { connectNats } from './nats-connection';
import { StreamNames } from './names';
import { RunEventStore, VersionConflictError } from './run-event-store';
import { ensureStreams } from './streams';

const at = '2026-11-21T10:00:00.000Z';
const created = (runId: string): RunEvent => ({
  type: 'run.created',
  data: { runId, workspaceId: 'ws', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at },
});
const started: RunEvent = { type: 'run.started', data: { at } };

describe('RunEventStore against real JetStream', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RunEventStore;
  let names: StreamNames;
  let jsm: JetStreamManager;

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

  it('appends after the version read and reads the events back in order', async () => {
    const runId = randomUUID();
    const v1 = await store.append('ws', runId, [created(runId)], 0, 'a');
    const v2 = await store.append('ws', runId, [started], v1, 'b');
    const read = await store.read('ws', runId);
    expect(read.version).toBe(v2);
    expect(read.events.map((e) => [e.seq, e.event.type])).toEqual([
      [v1, 'run.created'],
      [v2, 'run.started'],
    ]);
  });

  it("leaves no consumer on the server after reading a run's history", async () => {
    const runId = randomUUID();
    const v1 = await store.append('ws', runId, [created(runId)], 0, 'a');
    await store.append('ws', runId, [started], v1, 'b');
    const consumers = async (): Promise<number> => (await jsm.streams.info(names.eventsStream)).state.consumer_count;
    const before = await consumers();
    expect((await store.read('ws', runId)).events).toHaveLength(2);
    const deadline = Date.now() + 10_000;
    while ((await consumers()) !== before && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await consumers()).toBe(before);
  });

  it('refuses an append based on a stale version (optimistic concurrency)', async () => {
    const runId = randomUUID();
    const v1 = await store.append('ws', runId, [created(runId)], 0, 'a');
    await store.append('ws', runId, [started], v1, 'b');
    await expect(store.append('ws', runId, [started], v1, 'c')).rejects.toBeInstanceOf(VersionConflictError);
    await expect(store.append('ws', runId, [created(runId)], 0, 'd')).rejects.toBeInstanceOf(VersionConflictError);
    expect((await store.read('ws', runId)).events).toHaveLength(2);
  });

  it('stores a publish retried with the same message id once, and tells the retry it conflicted', async () => {
    const runId = randomUUID();
    await store.append('ws', runId, [created(runId)], 0, 'same');
    // The same append again with the same id: a lost acknowledgement retried, or another writer that
    // decided the same on the same version. Either way it is not this call's event: re-read to know.
    await expect(store.append('ws', runId, [created(runId)], 0, 'same')).rejects.toBeInstanceOf(VersionConflictError);
    expect((await store.read('ws', runId)).events).toHaveLength(1);
  });

  it('keeps runs apart: each run is its own subject and version', async () => {
    const a = randomUUID();
    const b = randomUUID();
    await store.append('ws', a, [created(a)], 0, 'a');
    await store.append('ws', b, [created(b)], 0, 'b');
    expect((await store.read('ws', a)).events.map((e) => e.event.type)).toEqual(['run.created']);
    expect(await store.version('other-ws', a)).toBe(0);
  });
});
