import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { fold, type RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { StreamNames } from './names';
import { connectNats } from './nats-connection';
import { RunCommandHandler } from './run-command-handler';
import { RunEventStore } from './run-event-store';
import { ensureStreams } from './streams';

const at = '2026-11-21T10:00:00.000Z';

describe('RunCommandHandler against real JetStream', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RunEventStore;
  let handler: RunCommandHandler;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    handler = new RunCommandHandler(store);
  });

  afterAll(async () => {
    await nc.close();
    await env.cleanup();
  });

  it('a decision made on a stale snapshot is made again on the events: no stale event is appended', async () => {
    const runId = randomUUID();
    const created: RunEvent = {
      type: 'run.created',
      data: { runId, workspaceId: 'ws', workload: { image: 'x' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at },
    };
    const dispatched: RunEvent = {
      type: 'run.dispatched',
      data: { placement: { provider: 'simulator', region: 'r', reason: 'x', candidates: [] }, at },
    };
    const v1 = await store.append('ws', runId, [created], 0, 'a');
    await store.append('ws', runId, [dispatched], v1, 'b');
    // The snapshot still says `queued` (version v1): on it, a cancel would end the run outright.
    const result = await handler.execute('ws', runId, { type: 'CancelRun', requestedBy: 'u', now: at }, 'c', {
      state: fold([created]),
      version: v1,
    });
    // The run had been dispatched: the right decision is a cancel request.
    expect(result.appended.map((e) => e.type)).toEqual(['run.cancel_requested']);
    const { events } = await store.read('ws', runId);
    expect(events.map((e) => e.event.type)).toEqual(['run.created', 'run.dispatched', 'run.cancel_requested']);
  });

  it('a create decided on "no run yet" appends once, and a repeat finds the run and decides nothing', async () => {
    const runId = randomUUID();
    const create = {
      type: 'CreateRun' as const,
      runId,
      workspaceId: 'ws',
      workload: { image: 'x' },
      provider: 'auto',
      region: 'auto',
      idempotencyKey: 'k',
      now: at,
    };
    expect((await handler.execute('ws', runId, create, 'm1', { state: null, version: 0 })).appended).toHaveLength(1);
    expect((await handler.execute('ws', runId, create, 'm2', { state: null, version: 0 })).appended).toHaveLength(0);
    expect((await store.read('ws', runId)).events).toHaveLength(1);
  });
});
