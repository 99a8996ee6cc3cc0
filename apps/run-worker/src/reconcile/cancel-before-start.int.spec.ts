import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { fold, toRunView, type Placement, type ProviderOffer, type RunEvent, type RunView } from '@wrs/domain';
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
import type { RunProvider, StillWanted } from '../providers/provider';
import { ProviderRegistry } from '../providers/provider-registry';
import { Reconciler } from '../reconciler';

const WS = 'ws-cancel-before-start';
const OFFERS: ProviderOffer[] = [{ provider: 'container', regions: ['local'], priority: 0 }];

/** The real provider, whose submits wait at a gate the test opens: a submit slow to reach the engine (a pull, a busy worker). */
class HeldSubmits implements RunProvider {
  readonly name = 'container';
  readonly takesCredential = false;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  reached!: () => void;
  readonly arrived = new Promise<void>((resolve) => (this.reached = resolve));
  submitted: Promise<void> | undefined;

  constructor(private readonly real: ContainerProvider) {}

  submit(run: RunView, placement: Placement, credential: string | null, stillWanted?: StillWanted): Promise<void> {
    this.submitted = (async () => {
      this.reached();
      await this.gate;
      await this.real.submit(run, placement, credential, stillWanted);
    })();
    return this.submitted;
  }

  letThrough(): void {
    this.open();
  }

  observe(run: RunView) {
    return this.real.observe(run);
  }
  logs(run: RunView, fromIndex: number) {
    return this.real.logs(run, fromIndex);
  }
  cancel(run: RunView) {
    return this.real.cancel(run);
  }
}

/**
 * The chaos `containers` profile saw runs recorded `canceled` whose containers started after that: one
 * worker's submit was on its way to the engine when another worker confirmed the cancel (it found no
 * container yet), and the submit then created and started it. The submit now asks, once the container
 * exists and before it starts it, whether the run still wants it. Real JetStream, Postgres and Podman.
 */
describeNeeding(containerEngineMissing())('a run canceled while its submit is on the way never starts (real container on Podman)', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let db: DataSource;
  let store: RunEventStore;
  let projection: RunProjection;
  let real: ContainerProvider;
  const errors: unknown[] = [];
  let tap: EngineEventTap | undefined;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
    nc = await connectNats(env.natsUrl, 'cancel-before-start-test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    projection = new RunProjection(db);
    real = new ContainerProvider(containerEngine(CONTAINER_SOCKET), 'container', env.namespace);
  });

  afterAll(async () => {
    await tap?.close();
    for (const c of await engineContainers([`${OWNER_LABEL}=${env.namespace}`])) {
      await engineRemove(c.id);
    }
    await nc.close();
    await db.destroy();
    await env.cleanup();
  });

  const worker = (provider: RunProvider) =>
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
  async function projectAll(runId: string): Promise<void> {
    let previous = 0;
    for (const { seq, event } of (await store.read(WS, runId)).events) {
      await projection.project(runId, seq, event, previous);
      previous = seq;
    }
  }

  it('the submit finds the cancel recorded, leaves its container unstarted and removes it', async () => {
    tap = new EngineEventTap(env.namespace);
    await tap.start();
    const runId = randomUUID();
    const created: RunEvent = {
      type: 'run.created',
      data: {
        runId,
        workspaceId: WS,
        workload: { image: CONTAINER_IMAGE, command: ['/bin/sh', '-c', 'sleep 30'] },
        provider: 'container',
        region: 'local',
        idempotencyKey: randomUUID(),
        at: new Date().toISOString(),
      },
    };
    await store.append(WS, runId, [created], 0, 'create');
    await projectAll(runId);

    // The first worker records the dispatch; its submit waits before it reaches the engine.
    const held = new HeldSubmits(real);
    const submitter = worker(held);
    const sweeping = submitter.sweep();
    await held.arrived;

    // Meanwhile the cancel is requested, and a second worker confirms it: the engine has no container yet.
    await new RunCommandHandler(store).execute(
      WS,
      runId,
      { type: 'CancelRun', requestedBy: 'alice', now: new Date().toISOString() },
      'cancel',
    );
    const canceler = worker(real);
    await eventually(
      async () => {
        canceler.poke(await viewOf(runId));
        return (await viewOf(runId)).state === 'canceled' ? true : undefined;
      },
      30_000,
      'the cancel to be confirmed',
    );

    // The submit now reaches the engine: it creates the container, and must not start it.
    held.letThrough();
    await held.submitted;
    await sweeping;
    await eventually(
      async () => ((await engineContainers([`${RUN_LABEL}=${runId}`])).length === 0 ? true : undefined),
      20_000,
      'the unstarted container to be removed',
    );
    await Promise.all([submitter.stop(), canceler.stop()]);
    const events = await tap.stop();
    expect({
      created: eventsByRun(events, 'create').get(runId)?.length ?? 0,
      started: eventsByRun(events, 'start').get(runId)?.length ?? 0,
      state: (await viewOf(runId)).state,
      errors,
    }).toEqual({ created: 1, started: 0, state: 'canceled', errors: [] });
  }, 120_000);
});
