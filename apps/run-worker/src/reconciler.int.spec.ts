import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { DEFAULT_PROVIDER_OFFERS } from '@wrs/config';
import { fold, toRunView, type RunEvent, type RunView } from '@wrs/domain';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase, ProviderCredentials, RunQueries } from '@wrs/persistence';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { CredentialVault } from './credential-vault';
import { ProviderRegistry } from './providers/provider-registry';
import { SimulatorProvider } from './providers/simulator.provider';
import { Reconciler } from './reconciler';
import { RunCommandHandler } from '@wrs/messaging';

/** The simulator, counting the submits the reconciler makes. */
class CountingSimulator extends SimulatorProvider {
  submits = 0;

  override submit(): Promise<void> {
    this.submits++;
    return super.submit();
  }
}

/**
 * The reconciler against real JetStream and Postgres, driven by hand (no sweep timer) with a
 * simulator on a clock the test moves: each drive decides on what the previous step left, and a row
 * older than what the worker has since appended is not decided on again.
 */
describe('Reconciler: one drive, one decision per step, none on a stale row', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let db: DataSource;
  let store: RunEventStore;
  let reconciler: Reconciler;
  let conflicts = 0;
  let now = Date.parse('2026-11-22T08:00:00.000Z');
  const simulator = new CountingSimulator('simulator', () => now);

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
    nc = await connectNats(env.natsUrl, 'reconciler-test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    const clock = (): Date => new Date(now);
    reconciler = new Reconciler(
      new RunQueries(db),
      new RunCommandHandler(store, () => conflicts++),
      new ProviderRegistry([simulator]),
      DEFAULT_PROVIDER_OFFERS,
      new CredentialVault(new ProviderCredentials(db), new Map()),
      {
        intervalMs: 60_000,
        maxObserveIntervalMs: 60_000,
        batchSize: 10,
        unresponsiveAfterMs: 60_000,
        onError: (error) => {
          throw error;
        },
      },
      clock,
    );
  });

  afterAll(async () => {
    await nc.close();
    await db.destroy();
    await env.cleanup();
  });

  async function viewOf(runId: string): Promise<RunView> {
    const { events, version } = await store.read('ws', runId);
    const state = fold(events.map((e) => e.event));
    if (!state) {
      throw new Error('no run');
    }
    return toRunView(state, version);
  }

  async function typesOf(runId: string): Promise<string[]> {
    return (await store.read('ws', runId)).events.map((e) => e.event.type);
  }

  async function createdRun(): Promise<string> {
    const runId = randomUUID();
    const created: RunEvent = {
      type: 'run.created',
      data: {
        runId,
        workspaceId: 'ws',
        workload: { image: 'busybox', env: { SIM_START_DELAY_MS: '10', SIM_DURATION_MS: '10' } },
        provider: 'simulator',
        region: 'auto',
        idempotencyKey: randomUUID(),
        at: new Date(now).toISOString(),
      },
    };
    await store.append('ws', runId, [created], 0, 'create');
    return runId;
  }

  it('a run observed finished while still starting gets started and succeeded from one drive, with no conflict', async () => {
    const runId = await createdRun();
    reconciler.poke(await viewOf(runId));
    await eventually(async () => ((await typesOf(runId)).includes('run.dispatched') ? true : undefined));
    const starting = await viewOf(runId);
    expect(starting.state).toBe('starting');
    conflicts = 0;
    now += 1_000; // long past the simulated start and duration
    reconciler.poke(starting);
    await eventually(async () => ((await typesOf(runId)).includes('run.succeeded') ? true : undefined));
    expect(await typesOf(runId)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
    expect(conflicts).toBe(0);
  });

  it('a run pending right after its own submit was taken is not submitted again by that process; a restarted one submits again', async () => {
    const runId = await createdRun();
    reconciler.poke(await viewOf(runId));
    await eventually(async () => ((await typesOf(runId)).includes('run.dispatched') ? true : undefined));
    const starting = await viewOf(runId);
    const submits = simulator.submits;
    // Before the simulated start delay: the provider says pending.
    reconciler.poke(starting);
    await new Promise((r) => setTimeout(r, 300));
    expect(simulator.submits).toBe(submits);
    // A process that did not see the submit taken (restarted, or another replica) submits again.
    const restarted = new Reconciler(
      new RunQueries(db),
      new RunCommandHandler(store),
      new ProviderRegistry([simulator]),
      DEFAULT_PROVIDER_OFFERS,
      new CredentialVault(new ProviderCredentials(db), new Map()),
      {
        intervalMs: 60_000,
        maxObserveIntervalMs: 60_000,
        batchSize: 10,
        unresponsiveAfterMs: 60_000,
        onError: (error) => {
          throw error;
        },
      },
      () => new Date(now),
    );
    restarted.poke(starting);
    await eventually(() => Promise.resolve(simulator.submits === submits + 1 ? true : undefined));
    await restarted.stop();
    expect(await typesOf(runId)).toEqual(['run.created', 'run.dispatched']);
  });

  it('a row older than what the worker appended since is not decided on again (no second submit)', async () => {
    const runId = await createdRun();
    const queued = await viewOf(runId);
    reconciler.poke(queued);
    await eventually(async () => ((await typesOf(runId)).includes('run.dispatched') ? true : undefined));
    conflicts = 0;
    const submits = simulator.submits;
    // A sweep's row read before the dispatch: deciding on it would submit the workload again (the
    // append is then a duplicate JetStream drops, by its message id).
    reconciler.poke(queued);
    await new Promise((r) => setTimeout(r, 300));
    expect(simulator.submits).toBe(submits);
    expect(conflicts).toBe(0);
    expect(await typesOf(runId)).toEqual(['run.created', 'run.dispatched']);
  });
});
