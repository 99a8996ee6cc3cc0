import type { KeyObject } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ProviderOffer } from '@wrs/domain';
import { Failpoint, kindOf } from '@wrs/config';
import { decisionConflicts, strayWorkloadsRemoved } from '@wrs/observability';
import {
  DEFAULT_STREAM_SETTINGS,
  DurableConsumer,
  ensureStreams,
  parseRunSubject,
  RunCommandHandler,
  RunEventStore,
  StreamNames,
} from '@wrs/messaging';
import { ProviderCredentials, RunQueries } from '@wrs/persistence';
import { PROJECTION_BATCHING, RunProjection } from '@wrs/projection';
import type { DataSource } from 'typeorm';
import { CommandConsumer } from './command-consumer';
import { idsFromSubject, observedBatchHandler, observedHandler } from './observed-handler';
import { CredentialVault } from './credential-vault';
import { ProjectionConsumer } from './projection-consumer';
import { ContainerProvider } from './providers/container.provider';
import { containerEngine } from './providers/container/engine';
import { containerSettingsOf } from './providers/container-limits';
import { KubernetesProvider } from './providers/kubernetes.provider';
import { ServerAddresses } from './providers/kubernetes/server-guard';
import type { RunProvider } from './providers/provider';
import { ProviderRegistry } from './providers/provider-registry';
import { SimulatorProvider } from './providers/simulator.provider';
import { throttledPerKey } from './log-throttle';
import { Reconciler } from './reconciler';
import { runFates, WorkloadCleanup } from './workload-cleanup';
import { reportWorkerGauges } from './worker-metrics';
import { startWebhooks, type WebhookSettings } from './webhooks/start-webhooks';

export interface RunWorkerOptions {
  readonly nc: NatsConnection;
  readonly db: DataSource;
  readonly namespace: string;
  readonly offers: readonly ProviderOffer[];
  readonly reconcileIntervalMs: number;
  /** The longest a quiet starting or running run goes unobserved (default 5 s); a provider's watch wakes it sooner. */
  readonly reconcileMaxObserveIntervalMs?: number;
  /** JETSTREAM_ACK_WAIT_MS: how long a delivered message may stay unacknowledged before another worker gets it. */
  readonly ackWaitMs: number;
  /** How often stray workloads are looked for, and how long one of an unprojected run is spared. */
  readonly workloadCleanup: { readonly intervalMs: number; readonly graceMs: number };
  readonly idempotencyRetentionMs: number;
  /**
   * How long revocations are kept (from AUTH_TOKEN_MAX_TTL_SECONDS): the worker creates the streams too,
   * and must not shorten what the api and relay need. Default: that of the default maximum TTL.
   */
  readonly revocationRetentionMs?: number;
  /** Copies of each JetStream stream (JETSTREAM_REPLICAS): the same for every service that creates them. */
  readonly streamReplicas: number;
  /** Private key-encryption keys by id: what opens stored provider credentials at dispatch. */
  readonly privateKeks: ReadonlyMap<string, KeyObject>;
  readonly containerEngineSocket?: string | undefined;
  /** KUBERNETES_ALLOWED_PRIVATE_RANGES: the private ranges a workspace's Kubernetes API server may be in (default none). */
  readonly kubernetesAllowedPrivateRanges?: string | undefined;
  readonly providerUnresponsiveMs: number;
  /** How often providers with a global health endpoint are probed (default 10 s). */
  readonly providerProbeIntervalMs?: number;
  /** Fault injection for crash tests: the process dies (SIGKILL) at this named site. */
  readonly failpoint?: string | undefined;
  /** Webhook delivery (docs/webhooks.md); unset: no deliveries are made by this process. */
  readonly webhooks?: WebhookSettings;
  readonly log: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/** How many legacy cancel commands one worker process decides at once (each waits mostly on JetStream). */
const COMMAND_CONCURRENCY = 32;

/** Wires the worker: the Postgres projection, the reconciler that drives runs, and the drain of legacy cancel commands. */
export async function startRunWorker(options: RunWorkerOptions): Promise<RunningWorker> {
  const { nc, db, namespace, offers, log } = options;
  const names = new StreamNames(namespace);
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, names, {
    idempotencyRetentionMs: options.idempotencyRetentionMs,
    revocationRetentionMs: options.revocationRetentionMs ?? DEFAULT_STREAM_SETTINGS.revocationRetentionMs,
    replicas: options.streamReplicas,
  });
  const failpoint = new Failpoint(options.failpoint);
  const eventStore = new RunEventStore(js, jsm, names);
  const handler = new RunCommandHandler(eventStore, () => decisionConflicts.inc());
  const credentials = new ProviderCredentials(db);
  const vault = new CredentialVault(credentials, options.privateKeks);
  const queries = new RunQueries(db);
  const serverAddresses = new ServerAddresses(options.kubernetesAllowedPrivateRanges ?? '');
  const providerList = offers.flatMap((offer): RunProvider[] => {
    switch (kindOf(offer)) {
      case 'container':
        return options.containerEngineSocket
          ? [new ContainerProvider(containerEngine(options.containerEngineSocket), offer.provider, namespace, containerSettingsOf(offer))]
          : [];
      case 'kubernetes':
        // Each workspace's own cluster, from its stored credential.
        return [
          new KubernetesProvider(offer.provider, (workspaceId, provider, region) => vault.open(workspaceId, provider, region), {
            owner: namespace,
            places: () => credentials.placesOf(offer.provider),
            serverAddresses,
          }),
        ];
      case 'simulator':
        return [new SimulatorProvider(offer.provider)];
    }
  });
  const providers = new ProviderRegistry(
    providerList,
    options.providerProbeIntervalMs ? { probeIntervalMs: options.providerProbeIntervalMs } : {},
  );
  const cleanup = new WorkloadCleanup(providerList, runFates(queries, eventStore), {
    ...options.workloadCleanup,
    maxRemovalsPerPass: 200,
    onRemoved: (provider, workload, reason) => {
      strayWorkloadsRemoved.inc({ provider, reason });
      log('info', 'stray workload removed', { provider, runId: workload.runId, workspaceId: workload.workspaceId, reason });
    },
    onError: (provider, error) => log('warn', 'workload cleanup failed; the next pass tries again', { provider, error: String(error) }),
  });
  // A run that keeps failing (a dead engine) is tried every sweep: one line per run every 30 s.
  const reconcileFailures = throttledPerKey(30_000);
  const reconciler = new Reconciler(
    queries,
    handler,
    providers,
    offers,
    vault,
    {
      intervalMs: options.reconcileIntervalMs,
      maxObserveIntervalMs: options.reconcileMaxObserveIntervalMs ?? DEFAULT_MAX_OBSERVE_INTERVAL_MS,
      batchSize: 500,
      unresponsiveAfterMs: options.providerUnresponsiveMs,
      onError: (error, run) => {
        const { log: due, suppressed } = reconcileFailures(run.runId);
        if (due) {
          log('warn', 'reconcile failed', { runId: run.runId, workspaceId: run.workspaceId, error: String(error), suppressed });
        }
      },
      onReadError: (error) => {
        const { log: due, suppressed } = reconcileFailures('(read)');
        if (due) {
          log('warn', 'reconcile could not read the unfinished runs; the next sweep tries again', { error: String(error), suppressed });
        }
      },
    },
    () => new Date(),
    (name) => failpoint.hit(name),
  );
  const commands = new CommandConsumer(handler);
  const projection = new ProjectionConsumer(
    new RunProjection(db),
    (run) => reconciler.poke(run),
    eventStore,
    (error, hole) =>
      log('warn', "could not fill a hole in a run's events now; its redelivery will", {
        runId: hole.runId,
        seq: hole.seq,
        error: String(error),
      }),
  );
  const onError = (kind: string) => (error: unknown, message: { seq: number; subject: string }) =>
    log('warn', `${kind} message failed; it will be redelivered`, { seq: message.seq, ...idsFromSubject(message), error: String(error) });
  const commandConsumer = new DurableConsumer(js, jsm, {
    stream: names.commandsStream,
    durable: names.workerCommandsConsumer(),
    filterSubject: names.allCommands(),
    ackWaitMs: options.ackWaitMs,
    onError: onError('command'),
  });
  const projectionConsumer = new DurableConsumer(js, jsm, {
    stream: names.eventsStream,
    durable: names.projectionConsumer(),
    filterSubject: names.allRunEvents(),
    ackWaitMs: options.ackWaitMs,
    onError: onError('projection'),
  });
  // Cancels an api of the previous version published (for one release: see command-consumer.ts), in
  // parallel across runs; the projection takes whatever has arrived as one batch.
  await commandConsumer.start(
    observedHandler('commands', idsFromSubject, async (m) => {
      const disposition = await commands.handle(m);
      // One line per legacy command, with the request and trace ids.
      log('info', 'command handled', { seq: m.seq, disposition });
      return disposition;
    }),
    { concurrency: COMMAND_CONCURRENCY, keyOf: (m) => parseRunSubject(m.subject)?.runId ?? m.subject },
  );
  await projectionConsumer.startBatches(
    observedBatchHandler('projection', idsFromSubject, (ms, within) => projection.handleBatch(ms, within)),
    PROJECTION_BATCHING.maxBatch,
    PROJECTION_BATCHING.lingerMs,
    // One subject per run: a run's events are never in two batches in hand at once.
    { concurrency: PROJECTION_BATCHING.concurrency, keyOf: (m) => m.subject },
  );
  providers.health.start();
  reconciler.start();
  cleanup.start();
  const webhooks = options.webhooks
    ? startWebhooks(
        { js, jsm, names, db, privateKeks: options.privateKeks, failpoint: (name) => failpoint.hit(name), log },
        options.webhooks,
      )
    : undefined;
  const stopGauges = reportWorkerGauges(
    jsm,
    [
      { label: 'commands', stream: names.commandsStream, durable: names.workerCommandsConsumer() },
      { label: 'projection', stream: names.eventsStream, durable: names.projectionConsumer() },
    ],
    db,
  );
  return {
    stop: async () => {
      stopGauges();
      await webhooks?.stop();
      await reconciler.stop();
      await cleanup.stop();
      await providers.health.stop();
      await commandConsumer.stop();
      await projectionConsumer.stop();
    },
  };
}

/** A quiet run is observed at least this often, so a provider without a watch is late by at most this much. */
const DEFAULT_MAX_OBSERVE_INTERVAL_MS = 5_000;
