import { randomBytes, randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { toRunView, type Placement, type RunEvent, type RunView } from '@wrs/domain';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase, RunQueries } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import {
  CONTAINER_IMAGE,
  CONTAINER_SOCKET,
  containerEngineMissing,
  describeNeeding,
  isolatedEnvironment,
  startFakeKubernetes,
  type FakeKubernetes,
  type IsolatedEnvironment,
} from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { ContainerProvider } from './providers/container.provider';
import { containerEngine } from './providers/container/engine';
import { KubernetesProvider } from './providers/kubernetes.provider';
import { ServerAddresses } from './providers/kubernetes/server-guard';
import type { RunProvider } from './providers/provider';
import { runFates, WorkloadCleanup } from './workload-cleanup';

const GRACE_MS = 60_000;
const WS = 'ws-cleanup';

/**
 * The cleanup of stray workloads against real runs (JetStream events, their Postgres projection) and
 * real workloads: containers on the engine (Podman here), Jobs on the fake Kubernetes API server.
 * Time past the grace period is the cleanup's clock moved on, not a wait.
 */
describe('WorkloadCleanup', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let db: DataSource;
  let store: RunEventStore;
  let projection: RunProjection;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
    nc = await connectNats(env.natsUrl, 'cleanup-test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    projection = new RunProjection(db);
  });

  afterAll(async () => {
    await nc.close();
    await db.destroy();
    await env.cleanup();
  });

  const cleanupOf = (provider: RunProvider, at: () => number = Date.now) =>
    new WorkloadCleanup(
      [provider],
      runFates(new RunQueries(db), store),
      {
        intervalMs: 60_000,
        graceMs: GRACE_MS,
        maxRemovalsPerPass: 100,
        onRemoved: () => undefined,
        onError: (_provider, error) => {
          throw error;
        },
      },
      at,
    );
  const afterGrace = () => Date.now() + GRACE_MS + 1_000;

  function runOf(runId: string, provider: string, placement: Placement | null, image = CONTAINER_IMAGE): RunView {
    const at = new Date().toISOString();
    return toRunView(
      {
        runId,
        workspaceId: WS,
        state: placement ? 'starting' : 'queued',
        workload: { image, command: ['/bin/sh', '-c', 'sleep 300'] },
        requested: { provider, region: 'local' },
        placement,
        idempotencyKey: 'k',
        createdAt: at,
        dispatchedAt: placement ? at : null,
        startedAt: null,
        finishedAt: null,
        exitCode: null,
        failure: null,
        cancellation: null,
        logLines: 0,
      },
      1,
    );
  }

  /** A run as the api and worker record it: created, then (if `cancel`) canceled before dispatch; projected or not. */
  async function recordRun(provider: string, opts: { cancel: boolean; project: boolean }): Promise<string> {
    const runId = randomUUID();
    const at = new Date().toISOString();
    const created: RunEvent = {
      type: 'run.created',
      data: { runId, workspaceId: WS, workload: { image: CONTAINER_IMAGE }, provider, region: 'local', idempotencyKey: randomUUID(), at },
    };
    const events: RunEvent[] = opts.cancel ? [created, { type: 'run.canceled', data: { requestedBy: 'alice', at } }] : [created];
    let version = 0;
    for (const event of events) {
      const previous = version;
      version = await store.append(WS, runId, [event], version, `test-${event.type}`);
      if (opts.project) {
        await projection.project(runId, version, event, previous);
      }
    }
    return runId;
  }

  describeNeeding(containerEngineMissing())('on a real container engine', () => {
    const engine = containerEngine(CONTAINER_SOCKET);
    let provider: ContainerProvider;
    const placement: Placement = { provider: 'container', region: 'local', reason: 'test', candidates: [] };
    const started: string[] = [];

    beforeAll(() => {
      provider = new ContainerProvider(engine, 'container', env.namespace);
    });
    afterAll(async () => {
      await Promise.all(
        started.map((runId) =>
          engine
            .getContainer(`wrs-${runId}`)
            .remove({ force: true })
            .catch(() => undefined),
        ),
      );
    });

    async function containerOf(runId: string): Promise<'running' | 'absent' | string> {
      const info = await engine
        .getContainer(`wrs-${runId}`)
        .inspect()
        .catch((e: { statusCode?: number }) => {
          if (e.statusCode === 404) {
            return null;
          }
          throw e;
        });
      return info === null ? 'absent' : info.State.Status;
    }
    async function start(runId: string): Promise<void> {
      started.push(runId);
      await provider.submit(runOf(runId, 'container', placement), placement);
      expect(await containerOf(runId)).toBe('running');
    }

    it('stops and removes the running container of a run canceled before its dispatch was recorded', async () => {
      const canceled = await recordRun('container', { cancel: true, project: true });
      const live = await recordRun('container', { cancel: false, project: true });
      await start(canceled);
      await start(live);
      const removed = await cleanupOf(provider).pass();
      expect(removed.map((r) => [r.workload.runId, r.reason])).toEqual([[canceled, 'terminal']]);
      expect(await containerOf(canceled)).toBe('absent');
      // The unfinished run's container is its workload: it keeps running.
      expect(await containerOf(live)).toBe('running');
    });

    it('removes a container of no run only after the grace period, and never one whose run has events but no projection yet', async () => {
      const unknown = randomUUID();
      const unprojected = await recordRun('container', { cancel: false, project: false });
      await start(unknown);
      await start(unprojected);
      expect(await cleanupOf(provider).pass()).toEqual([]);
      expect(await containerOf(unknown)).toBe('running');
      const removed = await cleanupOf(provider, afterGrace).pass();
      expect(removed.map((r) => [r.workload.runId, r.reason])).toEqual([[unknown, 'orphan']]);
      expect(await containerOf(unknown)).toBe('absent');
      expect(await containerOf(unprojected)).toBe('running');
    });

    it('never touches a container of another installation sharing the engine', async () => {
      const foreign = randomUUID();
      const other = new ContainerProvider(engine, 'container', `other${randomBytes(4).toString('hex')}`);
      started.push(foreign);
      await other.submit(runOf(foreign, 'container', placement), placement);
      expect((await cleanupOf(provider, afterGrace).pass()).map((r) => r.workload.runId)).not.toContain(foreign);
      expect(await containerOf(foreign)).toBe('running');
    });
  });

  describe('on a Kubernetes API server (the fake)', () => {
    const namespace = 'team-runs';
    const token = `test-${randomBytes(16).toString('hex')}`;
    const placement: Placement = { provider: 'k8s', region: 'local', reason: 'test', candidates: [] };
    let fake: FakeKubernetes;
    let credential: string;

    beforeAll(async () => {
      fake = await startFakeKubernetes({ token, namespaces: [namespace] });
      credential = JSON.stringify({ server: fake.server, token, caCertificate: fake.caCertificate, namespace });
    });
    afterAll(async () => {
      expect(fake.invalidBodies).toEqual([]);
      await fake.stop();
    });

    // A fresh provider that has opened no cluster: it finds the workspace's cluster from the stored credentials.
    const providerFor = (owner: string) =>
      new KubernetesProvider('k8s', () => Promise.resolve(credential), {
        owner,
        places: () => Promise.resolve([{ workspaceId: WS, region: 'local' }]),
        serverAddresses: new ServerAddresses('127.0.0.0/8'), // the fake listens on loopback
      });
    const jobsOf = (runId: string) => fake.jobs().filter((j) => j.metadata?.labels?.['workload-run-service.io/run'] === runId);

    it('deletes the Job of a terminal run, keeps that of an unfinished run, and removes a Job of no run after the grace period', async () => {
      const submitter = providerFor(env.namespace);
      const canceled = await recordRun('k8s', { cancel: true, project: true });
      const live = await recordRun('k8s', { cancel: false, project: true });
      const unknown = randomUUID();
      for (const runId of [canceled, live, unknown]) {
        await submitter.submit(runOf(runId, 'k8s', placement, 'busybox:1.36'), placement, credential);
      }
      const cleanup = cleanupOf(providerFor(env.namespace));
      expect((await cleanup.pass()).map((r) => [r.workload.runId, r.reason])).toEqual([[canceled, 'terminal']]);
      expect(jobsOf(canceled)).toEqual([]);
      expect(fake.deletions.filter((d) => d.name === `wrs-${canceled}`)).toEqual([
        { name: `wrs-${canceled}`, propagationPolicy: 'Background' },
      ]);
      expect(jobsOf(unknown)).toHaveLength(1);
      expect((await cleanupOf(providerFor(env.namespace), afterGrace).pass()).map((r) => [r.workload.runId, r.reason])).toEqual([
        [unknown, 'orphan'],
      ]);
      expect(jobsOf(unknown)).toEqual([]);
      expect(jobsOf(live)).toHaveLength(1);
      await submitter.release(runOf(live, 'k8s', placement));
    });

    it('never touches a Job of another installation in the same namespace', async () => {
      const foreign = randomUUID();
      await providerFor('otherinstall').submit(runOf(foreign, 'k8s', placement, 'busybox:1.36'), placement, credential);
      expect(await cleanupOf(providerFor(env.namespace), afterGrace).pass()).toEqual([]);
      expect(jobsOf(foreign)).toHaveLength(1);
    });
  });
});
