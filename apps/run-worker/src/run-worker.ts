import type { KeyObject } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ProviderOffer } from '@wrs/domain';
import { Failpoint } from '@wrs/config';
import { DurableConsumer, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { ProviderCredentials, RunProjection, RunQueries } from '@wrs/persistence';
import type { DataSource } from 'typeorm';
import { CommandConsumer } from './command-consumer';
import { CredentialVault } from './credential-vault';
import { ProjectionConsumer } from './projection-consumer';
import { ContainerProvider } from './providers/container.provider';
import { EngineClient } from './providers/engine-client';
import type { RunProvider } from './providers/provider';
import { ProviderRegistry } from './providers/provider-registry';
import { SimulatorProvider } from './providers/simulator.provider';
import { Reconciler } from './reconciler';
import { RunCommandHandler } from './run-command-handler';

export interface RunWorkerOptions {
  readonly nc: NatsConnection;
  readonly db: DataSource;
  readonly namespace: string;
  readonly offers: readonly ProviderOffer[];
  readonly reconcileIntervalMs: number;
  readonly idempotencyRetentionMs: number;
  /** Private key-encryption keys by id: what opens stored provider credentials at dispatch. */
  readonly privateKeks: ReadonlyMap<string, KeyObject>;
  readonly containerEngineSocket?: string | undefined;
  readonly providerUnresponsiveMs: number;
  /** Fault injection for crash tests: the process dies (SIGKILL) at this named site. */
  readonly failpoint?: string | undefined;
  readonly log: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/** Wires the worker: command decisions, the Postgres projection and the reconciler that drives runs. */
export async function startRunWorker(options: RunWorkerOptions): Promise<RunningWorker> {
  const { nc, db, namespace, offers, log } = options;
  const names = new StreamNames(namespace);
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, names, { idempotencyRetentionMs: options.idempotencyRetentionMs });
  const failpoint = new Failpoint(options.failpoint);
  const handler = new RunCommandHandler(new RunEventStore(js, jsm, names));
  const reconciler = new Reconciler(
    new RunQueries(db),
    handler,
    new ProviderRegistry(
      offers.flatMap((offer): RunProvider[] => {
        const kind = offer.kind ?? offer.provider;
        if (kind === 'container') {
          return options.containerEngineSocket ? [new ContainerProvider(new EngineClient(options.containerEngineSocket), offer.provider)] : [];
        }
        return [new SimulatorProvider(offer.provider)];
      }),
    ),
    offers,
    new CredentialVault(new ProviderCredentials(db), options.privateKeks),
    {
      intervalMs: options.reconcileIntervalMs,
      batchSize: 500,
      unresponsiveAfterMs: options.providerUnresponsiveMs,
      onError: (error, run) => log('warn', 'reconcile failed', { runId: run.runId, error: String(error) }),
    },
    () => new Date(),
    (name) => failpoint.hit(name),
  );
  const commands = new CommandConsumer(handler);
  const projection = new ProjectionConsumer(new RunProjection(db), (run) => reconciler.poke(run));
  const onError = (kind: string) => (error: unknown, message: { seq: number; subject: string }) =>
    log('warn', `${kind} message failed; it will be redelivered`, { seq: message.seq, error: String(error) });
  const commandConsumer = new DurableConsumer(js, jsm, {
    stream: names.commandsStream,
    durable: names.workerCommandsConsumer(),
    filterSubject: names.allCommands(),
    ackWaitMs: 30_000,
    onError: onError('command'),
  });
  const projectionConsumer = new DurableConsumer(js, jsm, {
    stream: names.eventsStream,
    durable: names.projectionConsumer(),
    filterSubject: names.allRunEvents(),
    ackWaitMs: 30_000,
    onError: onError('projection'),
  });
  await commandConsumer.start((m) => commands.handle(m));
  await projectionConsumer.start((m) => projection.handle(m));
  reconciler.start();
  return {
    stop: async () => {
      await reconciler.stop();
      await commandConsumer.stop();
      await projectionConsumer.stop();
    },
  };
}
