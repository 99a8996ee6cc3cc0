import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { isolatedEnvironment, settlesWithin, type IsolatedEnvironment } from '@wrs/testing';
import { connectNats } from './nats-connection';
import { StreamNames } from './names';
import { RunEndings } from './run-endings';
import { RunEventStore } from './run-event-store';
import { ensureStreams } from './streams';

const at = '2026-11-27T08:00:00.000Z';
const created = (runId: string): RunEvent => ({
  type: 'run.created',
  data: { runId, workspaceId: 'ws-endings', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: runId, at },
});
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };
const started: RunEvent[] = [
  { type: 'run.dispatched', data: { placement, at } },
  { type: 'run.started', data: { at } },
];
const succeeded: RunEvent = { type: 'run.succeeded', data: { exitCode: 0, at } };

/**
 * RunEndings on a connection of its own, so what reaches it is counted by the connection's statistics:
 * the events of a run nobody waits for must not reach it at all.
 */
describe('RunEndings against real NATS: a subscription per waited run, none otherwise', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let own: NatsConnection;
  let store: RunEventStore;
  let endings: RunEndings;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    const names = new StreamNames(env.namespace);
    nc = await connectNats(env.natsUrl, 'run-endings-test-writer');
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    own = await connectNats(env.natsUrl, 'run-endings-test');
    endings = new RunEndings(own, names);
    endings.start();
  });

  afterAll(async () => {
    await endings.stop();
    await own.close();
    await nc.close();
    await env.cleanup();
  });

  const run = async (): Promise<string> => {
    const runId = randomUUID();
    await store.append('ws-endings', runId, [created(runId), ...started], 0, randomUUID());
    return runId;
  };
  const end = async (runId: string): Promise<void> => {
    await store.append('ws-endings', runId, [succeeded], await store.version('ws-endings', runId), randomUUID());
  };
  const received = async (): Promise<number> => {
    await own.flush();
    return own.stats().inMsgs;
  };

  it('receives nothing while nobody waits, though runs start and end', async () => {
    const before = await received();
    await end(await run());
    await end(await run());
    expect(endings.subscriptions).toBe(0);
    expect(await received()).toBe(before);
  });

  it("wakes a run's waiters at its end with one subscription for them all, and receives no other run's events", async () => {
    const waited = await run();
    const other = await run();
    const first = endings.wait('ws-endings', waited, 30_000);
    const second = endings.wait('ws-endings', waited, 30_000);
    expect(endings.subscriptions).toBe(1);
    const before = await received();
    await end(other);
    expect(await received()).toBe(before);
    await end(waited);
    expect(await settlesWithin(10_000, Promise.all([first.ended, second.ended]))).toEqual([true, true]);
    expect(await received()).toBe(before + 1);
    // Both settled: the run's subscription is gone, and its later events pass this process by.
    expect(endings.subscriptions).toBe(0);
    await own.flush(); // the unsubscribe has reached the server before the next append
    await store.append(
      'ws-endings',
      waited,
      [{ type: 'run.log', data: { index: 0, stream: 'stdout', line: 'late', at } }],
      await store.version('ws-endings', waited),
      randomUUID(),
    );
    expect(await received()).toBe(before + 1);
  });

  it('a non-terminal event of the waited run does not wake its waiters', async () => {
    const runId = await run();
    const wait = endings.wait('ws-endings', runId, 30_000);
    await store.append(
      'ws-endings',
      runId,
      [{ type: 'run.log', data: { index: 0, stream: 'stdout', line: 'x', at } }],
      await store.version('ws-endings', runId),
      randomUUID(),
    );
    expect(await settlesWithin(1_000, wait.ended)).toBe('still waiting');
    await end(runId);
    expect(await settlesWithin(10_000, wait.ended)).toBe(true);
  });

  it("a message on a waited run's subject that is no event is not an end, and the connection goes on", async () => {
    const runId = await run();
    const wait = endings.wait('ws-endings', runId, 30_000);
    await own.flush();
    nc.publish(`${env.namespace}.evt.ws-endings.${runId}`, new TextEncoder().encode('not an event'));
    expect(await settlesWithin(1_000, wait.ended)).toBe('still waiting');
    await end(runId);
    expect(await settlesWithin(10_000, wait.ended)).toBe(true);
  });

  it("keeps a run's subscription while one of its waiters remains, and ends it with the last", async () => {
    const runId = await run();
    const dropped = endings.wait('ws-endings', runId, 30_000);
    const kept = endings.wait('ws-endings', runId, 30_000);
    dropped.drop();
    expect(await dropped.ended).toBe(false);
    expect(endings.subscriptions).toBe(1);
    await end(runId);
    expect(await settlesWithin(10_000, kept.ended)).toBe(true);
    expect(endings.subscriptions).toBe(0);
  });

  it("a wait whose time runs out ends with false and takes its run's subscription with it", async () => {
    const runId = await run();
    const wait = endings.wait('ws-endings', runId, 300);
    expect(await settlesWithin(10_000, wait.ended)).toBe(false);
    expect(endings.subscriptions).toBe(0);
    expect(endings.waiting).toBe(0);
  });

  it('stop ends every wait with false and its subscription; a wait begun after stop ends at once, subscribing to nothing', async () => {
    const stopping = new RunEndings(own, new StreamNames(env.namespace));
    stopping.start();
    const runId = await run();
    const wait = stopping.wait('ws-endings', runId, 30_000);
    expect(stopping.subscriptions).toBe(1);
    await stopping.stop();
    expect(await wait.ended).toBe(false);
    expect(stopping.subscriptions).toBe(0);
    const late = stopping.wait('ws-endings', runId, 30_000);
    expect(await settlesWithin(1_000, late.ended)).toBe(false);
    expect(stopping.subscriptions).toBe(0);
  });
});
