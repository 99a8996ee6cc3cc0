import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { sealSecret } from '@wrs/credentials';
import type { RunEvent } from '@wrs/domain';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase, Webhooks, type WebhookDeliverySummary, type WebhookEventKind } from '@wrs/persistence';
import {
  isolatedEnvironment,
  startWebhookReceiver,
  type IsolatedEnvironment,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { startWebhooks, type RunningWebhooks } from './start-webhooks';

export interface HarnessSettings {
  readonly allowPrivateTargets: boolean;
  readonly maxAttempts: number;
}

/**
 * Real NATS, Postgres and an HTTPS receiver on loopback, with the worker's webhook intake and senders
 * running on them; runs are made by appending their events to JetStream, as the worker would.
 */
export class WebhookHarness {
  private readonly versions = new Map<string, number>();
  private running: RunningWebhooks | undefined;
  private readonly kek = generateKeyPairSync('x25519');
  readonly webhooks: Webhooks;

  private readonly replicas: RunningWebhooks[] = [];

  private constructor(
    readonly env: IsolatedEnvironment,
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    readonly db: DataSource,
    private readonly store: RunEventStore,
    readonly receiver: WebhookReceiver,
  ) {
    this.webhooks = new Webhooks(db);
  }

  static async start(settings: HarnessSettings): Promise<WebhookHarness> {
    const env = await isolatedEnvironment();
    await migrate(env.database);
    const nc = await connectNats(env.natsUrl, 'webhooks-test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    const db = await openDatabase(env.database);
    const harness = new WebhookHarness(env, nc, jsm, db, new RunEventStore(jetstream(nc), jsm, names), await startWebhookReceiver());
    harness.running = harness.startWorker(settings);
    return harness;
  }

  /** Another worker's intake and senders on the same stream and database (a replica). */
  startReplica(settings: HarnessSettings): RunningWebhooks {
    const replica = this.startWorker(settings);
    this.replicas.push(replica);
    return replica;
  }

  private startWorker(settings: HarnessSettings): RunningWebhooks {
    return startWebhooks(
      {
        js: jetstream(this.nc),
        jsm: this.jsm,
        names: new StreamNames(this.env.namespace),
        db: this.db,
        privateKeks: new Map<string, KeyObject>([['test', this.kek.privateKey]]),
        failpoint: () => undefined,
        log: () => undefined,
      },
      {
        http: {
          allowPrivateTargets: settings.allowPrivateTargets,
          timeoutMs: 1000,
          maxResponseBytes: 65536,
          ca: this.receiver.caCertificate,
        },
        schedule: { baseMs: 50, maxDelayMs: 200, maxAttempts: settings.maxAttempts },
        senders: 4,
        idleMs: 50,
      },
    );
  }

  /** Registers an endpoint as the api does (secret sealed for the worker); answers its id and secret. */
  async register(workspaceId: string, url: string, events: WebhookEventKind[]): Promise<{ id: string; secret: string }> {
    const id = randomUUID();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const sealed = sealSecret(secret, { id: 'test', publicKey: this.kek.publicKey }, `webhook/${workspaceId}/${id}`);
    await this.webhooks.add({ id, workspaceId, url, events, sealed });
    return { id, secret };
  }

  /** Rotates the endpoint's secret as the api does; answers the new one. */
  async rotate(workspaceId: string, id: string): Promise<string> {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    await this.webhooks.rotate(
      workspaceId,
      id,
      sealSecret(secret, { id: 'test', publicKey: this.kek.publicKey }, `webhook/${workspaceId}/${id}`),
    );
    return secret;
  }

  /** Appends events to a run (made on first use). */
  async append(workspaceId: string, runId: string, ...events: RunEvent[]): Promise<void> {
    const key = `${workspaceId}/${runId}`;
    const version = await this.store.append(workspaceId, runId, events, this.versions.get(key) ?? 0, randomUUID());
    this.versions.set(key, version);
  }

  async deliveries(workspaceId: string, webhookId: string): Promise<WebhookDeliverySummary[]> {
    return (await this.webhooks.deliveries(workspaceId, webhookId)) ?? [];
  }

  receivedAt(path: string): ReceivedWebhook[] {
    return this.receiver.received.filter((r) => r.path === path);
  }

  /** Stops the worker's intake, senders and retention, its start-up retention pass included. */
  async stopWorker(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.stop();
  }

  async close(): Promise<void> {
    const workers = this.running ? [this.running, ...this.replicas] : this.replicas;
    await Promise.all(workers.map((r) => r.stop()));
    await this.receiver.close();
    await this.db.destroy();
    await this.nc.close();
    await this.env.cleanup();
  }
}

const at = (): string => new Date().toISOString();

export const events = {
  created: (workspaceId: string, runId: string): RunEvent => ({
    type: 'run.created',
    data: {
      runId,
      workspaceId,
      workload: { image: 'busybox' },
      provider: 'simulator',
      region: 'auto',
      idempotencyKey: randomUUID(),
      at: at(),
    },
  }),
  started: (): RunEvent => ({ type: 'run.started', data: { at: at() } }),
  log: (index: number): RunEvent => ({ type: 'run.log', data: { index, stream: 'stdout', line: `line ${index}`, at: at() } }),
  succeeded: (): RunEvent => ({ type: 'run.succeeded', data: { exitCode: 0, at: at() } }),
};

export const typeOf = (received: ReceivedWebhook): string => (JSON.parse(received.body) as { type: string }).type;
