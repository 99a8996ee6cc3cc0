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
  engineContainers,
  engineRemove,
  isolatedEnvironment,
  OWNER_LABEL,
  type IsolatedEnvironment,
} from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { CredentialVault } from '../credential-vault';
import { ContainerProvider } from '../providers/container.provider';
import { containerEngine } from '../providers/container/engine';
import type { RunProvider } from '../providers/provider';
import { ProviderRegistry } from '../providers/provider-registry';
import { Reconciler } from '../reconciler';

const OFFERS: ProviderOffer[] = [{ provider: 'container', regions: ['local'], priority: 0 }];

/**
 * Worker replicas of one workspace on real JetStream, Postgres and Podman, each its own reconciler
 * (so its memory of newer versions is its own), sweeping only when a test says so. The projection is
 * written by the test, so that it can lag.
 */
export interface PodmanReconcilers {
  readonly env: IsolatedEnvironment;
  readonly store: RunEventStore;
  /** The container provider of this test's owner label. */
  readonly provider: ContainerProvider;
  /** Whatever a reconciler reported as an error. */
  readonly errors: unknown[];
  worker(provider?: RunProvider): Reconciler;
  viewOf(runId: string): Promise<RunView>;
  /** Projects the run's events up to and including the first of `type` (all of them without one). */
  projectUntil(runId: string, type?: RunEvent['type']): Promise<void>;
  /** Starts collecting the engine's events of this test's containers (closed by close()). */
  tapEngine(): Promise<EngineEventTap>;
  /** Appends a `run.created` of a container run of `command` and projects it; answers its id. */
  createRun(command: string[]): Promise<string>;
  /** Removes every container of this test's owner (a failing test leaves them on a shared engine) and closes all. */
  close(): Promise<void>;
}

export async function podmanReconcilers(workspaceId: string, connectionName: string): Promise<PodmanReconcilers> {
  const env = await isolatedEnvironment();
  await migrate(env.database);
  const db: DataSource = await openDatabase(env.database);
  const nc: NatsConnection = await connectNats(env.natsUrl, connectionName);
  const names = new StreamNames(env.namespace);
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, names);
  const store = new RunEventStore(jetstream(nc), jsm, names);
  const projection = new RunProjection(db);
  const provider = new ContainerProvider(containerEngine(CONTAINER_SOCKET), 'container', env.namespace);
  const errors: unknown[] = [];
  const taps: EngineEventTap[] = [];
  const projectUntil = async (runId: string, type?: RunEvent['type']): Promise<void> => {
    let previous = 0;
    for (const { seq, event } of (await store.read(workspaceId, runId)).events) {
      await projection.project(runId, seq, event, previous);
      previous = seq;
      if (event.type === type) {
        return;
      }
    }
  };
  return {
    env,
    store,
    provider,
    errors,
    worker: (workerProvider = provider) =>
      new Reconciler(
        new RunQueries(db),
        new RunCommandHandler(store),
        new ProviderRegistry([workerProvider]),
        OFFERS,
        new CredentialVault(new ProviderCredentials(db), new Map()),
        {
          intervalMs: 60_000,
          maxObserveIntervalMs: 60_000,
          batchSize: 10,
          unresponsiveAfterMs: 60_000,
          onError: (error) => errors.push(error),
        },
      ),
    viewOf: async (runId) => {
      const { events, version } = await store.read(workspaceId, runId);
      return toRunView(fold(events.map((e) => e.event))!, version);
    },
    projectUntil,
    tapEngine: async () => {
      const tap = new EngineEventTap(env.namespace);
      taps.push(tap);
      await tap.start();
      return tap;
    },
    createRun: async (command) => {
      const runId = randomUUID();
      await store.append(workspaceId, runId, [createdContainerRun(runId, workspaceId, CONTAINER_IMAGE, command)], 0, 'create');
      await projectUntil(runId, 'run.created');
      return runId;
    },
    close: async () => {
      await Promise.allSettled(taps.map((tap) => tap.close()));
      for (const c of await engineContainers([`${OWNER_LABEL}=${env.namespace}`])) {
        await engineRemove(c.id);
      }
      await nc.close();
      await db.destroy();
      await env.cleanup();
    },
  };
}

function createdContainerRun(runId: string, workspaceId: string, image: string, command: string[]): RunEvent {
  return {
    type: 'run.created',
    data: {
      runId,
      workspaceId,
      workload: { image, command },
      provider: 'container',
      region: 'local',
      idempotencyKey: runId,
      at: new Date().toISOString(),
    },
  };
}
