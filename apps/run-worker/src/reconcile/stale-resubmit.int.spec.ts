import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { fold, toRunView, type ProviderOffer, type RunEvent, type RunView } from '@wrs/domain';
import { connectNats, ensureStreams, RunCommandHandler, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase, ProviderCredentials, RunQueries } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import {
  CONTAINER_IMAGE,
  CONTAINER_SOCKET,
  EngineEventTap,
  containerEngineMissing,
  describeNeeding,
  engineContainers,
  engineRemove,
  eventsByRun,
  eventually,
  isolatedEnvironment,
  OWNER_LABEL,
  RUN_LABEL,
  type IsolatedEnvironment,
} from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { CredentialVault } from '../credential-vault';
import { ContainerProvider } from '../providers/container.provider';
import { containerEngine } from '../providers/container/engine';
import { ProviderRegistry } from '../providers/provider-registry';
import { Reconciler } from '../reconciler';

const WS = 'ws-stale';
const OFFERS: ProviderOffer[] = [{ provider: 'container', regions: ['local'], priority: 0 }];

/**
 * A second worker (or a sweep) that decides on a projection row older than the run's events must not
 * start a workload again: the chaos `containers` profile saw a run whose container had exited and been
 * released get a second container, started by an observe that found no workload on a stale `starting`
 * row. Real JetStream, Postgres and Podman; the projection is written by hand so that it lags.
 */
describeNeeding(containerEngineMissing())("a stale row never starts a finished run's workload again (real container on Podman)", () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let db: DataSource;
  let store: RunEventStore;
  let projection: RunProjection;
  let provider: ContainerProvider;
  const errors: unknown[] = [];
  let tap: EngineEventTap | undefined;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
    nc = await connectNats(env.natsUrl, 'stale-resubmit-test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    projection = new RunProjection(db);
    provider = new ContainerProvider(containerEngine(CONTAINER_SOCKET), 'container', env.namespace);
  });

  afterAll(async () => {
    await tap?.close();
    // Whatever a failing run of this test started stays on a shared engine otherwise.
    for (const c of await engineContainers([`${OWNER_LABEL}=${env.namespace}`])) {
      await engineRemove(c.id);
    }
    await nc.close();
    await db.destroy();
    await env.cleanup();
  });

  /** One worker replica: its own reconciler, so its memory of newer versions is its own. */
  const worker = () =>
    new Reconciler(
      new RunQueries(db),
      new RunCommandHandler(store),
      new ProviderRegistry([provider]),
      OFFERS,
      new CredentialVault(new ProviderCredentials(db), new Map()),
      {
        intervalMs: 60_000,
        maxObserveIntervalMs: 60_000,
        batchSize: 10,
        unresponsiveAfterMs: 60_000,
        onError: (error) => errors.push(error),
      },
    );
  async function viewOf(runId: string): Promise<RunView> {
    const { events, version } = await store.read(WS, runId);
    return toRunView(fold(events.map((e) => e.event))!, version);
  }
  /** Projects the run's events up to and including the first of `type`: the row a lagging projection holds. */
  async function projectUntil(runId: string, type: RunEvent['type']): Promise<void> {
    let previous = 0;
    for (const { seq, event } of (await store.read(WS, runId)).events) {
      await projection.project(runId, seq, event, previous);
      previous = seq;
      if (event.type === type) {
        return;
      }
    }
  }

  it('a finished run whose projection still says starting gets no second container', async () => {
    tap = new EngineEventTap(env.namespace);
    await tap.start();
    const runId = randomUUID();
    const created: RunEvent = {
      type: 'run.created',
      data: {
        runId,
        workspaceId: WS,
        workload: { image: CONTAINER_IMAGE, command: ['/bin/sh', '-c', 'echo done'] },
        provider: 'container',
        region: 'local',
        idempotencyKey: randomUUID(),
        at: new Date().toISOString(),
      },
    };
    await store.append(WS, runId, [created], 0, 'create');
    await projectUntil(runId, 'run.created');

    // The first worker dispatches and submits (from the row), then drives the run to its end from its events.
    const first = worker();
    await first.sweep();
    await projectUntil(runId, 'run.dispatched');
    const ended = await eventually(
      async () => {
        first.poke(await viewOf(runId));
        const types = (await store.read(WS, runId)).events.map((e) => e.event.type);
        return types.includes('run.succeeded') ? types : undefined;
      },
      30_000,
      'the run to succeed',
    );
    await eventually(
      async () => ((await engineContainers([`${RUN_LABEL}=${runId}`])).length === 0 ? true : undefined),
      20_000,
      'its container to be released',
    );

    // A second replica sweeps while the projection still holds the `starting` row.
    await worker().sweep();
    const made = eventsByRun(await tap.stop(), 'create').get(runId) ?? [];
    const left = await engineContainers([`${RUN_LABEL}=${runId}`]);
    expect({
      containersCreated: made.length,
      left: left.length,
      events: (await store.read(WS, runId)).events.map((e) => e.event.type),
    }).toEqual({
      containersCreated: 1,
      left: 0,
      events: ended,
    });
  }, 120_000);
});
