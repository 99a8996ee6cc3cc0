import type { KeyObject } from 'node:crypto';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { StreamNames } from '@wrs/messaging';
import type { DataSource } from 'typeorm';
import { DeliveryRetention } from './delivery-retention';
import { DeliveryStore } from './delivery-store';
import { HttpDelivery, type HttpDeliverySettings } from './http-delivery';
import { IntakeIdle } from './intake-idle';
import { IntakeStore } from './intake-store';
import type { RetrySchedule } from './retry-schedule';
import { WebhookIntake } from './webhook-intake';
import { WebhookSender } from './webhook-sender';

export interface WebhookSettings {
  readonly http: HttpDeliverySettings;
  readonly schedule: RetrySchedule;
  readonly senders: number;
  /** How often an idle sender looks for due retries (a new delivery wakes it at once). */
  readonly idleMs?: number;
  /** How often the intake looks whether an endpoint exists while none does, and whether one is left while reading. */
  readonly intakeIdleCheckMs?: number;
}

export interface WebhookDependencies {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly names: StreamNames;
  readonly db: DataSource;
  readonly privateKeks: ReadonlyMap<string, KeyObject>;
  readonly failpoint: (name: string) => void;
  readonly log: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
}

export interface RunningWebhooks {
  stop(): Promise<void>;
}

/** The intake (events to pending deliveries), the senders (pending deliveries to endpoints) and the removal of old ones. */
export function startWebhooks(deps: WebhookDependencies, settings: WebhookSettings): RunningWebhooks {
  const sender = new WebhookSender(new DeliveryStore(deps.db), new HttpDelivery(settings.http), {
    concurrency: settings.senders,
    idleMs: settings.idleMs ?? 1000,
    schedule: settings.schedule,
    privateKeks: deps.privateKeks,
    failpoint: deps.failpoint,
    onError: (error) => deps.log('warn', 'webhook delivery failed to be recorded; it will be tried again', { error: String(error) }),
  });
  const intake = new WebhookIntake(
    deps.js,
    deps.jsm,
    deps.names,
    new IntakeStore(deps.db),
    new IntakeIdle(deps.db, deps.jsm, deps.names.eventsStream),
    {
      name: 'webhooks',
      retryMs: 1000,
      idleCheckMs: settings.intakeIdleCheckMs ?? 1000,
      skipMarginMs: 60_000,
      onTaken: () => sender.poke(),
      onError: (error) => deps.log('warn', 'webhook intake failed; it starts again from its cursor', { error: String(error) }),
    },
  );
  const retention = new DeliveryRetention(deps.db, 10 * 60_000, (error) =>
    deps.log('warn', 'old webhook deliveries could not be removed; the next pass tries again', { error: String(error) }),
  );
  intake.start();
  sender.start();
  retention.start();
  return {
    stop: async () => {
      await intake.stop();
      await sender.stop();
      await retention.stop();
    },
  };
}
