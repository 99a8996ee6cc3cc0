import type { KeyObject } from 'node:crypto';
import { openSecret, type SealedSecret } from '@wrs/credentials';
import { webhookAttempts, webhookDeliveriesFailed } from '@wrs/observability';
import type { ClaimedDelivery, DeliveryStore, Settlement } from './delivery-store';
import type { AttemptOutcome, HttpDelivery } from './http-delivery';
import { delayAfter, type RetrySchedule } from './retry-schedule';
import { signatureHeader } from './signature';

export interface WebhookSenderOptions {
  readonly concurrency: number;
  /** How long an idle sender waits before looking again (a poke wakes it sooner). */
  readonly idleMs: number;
  readonly schedule: RetrySchedule;
  readonly privateKeks: ReadonlyMap<string, KeyObject>;
  readonly failpoint: (name: string) => void;
  readonly onError: (error: unknown) => void;
}

/** Sends due deliveries off the Postgres table, `concurrency` at a time; what it has in hand is in no memory but a row lock. */
export class WebhookSender {
  private running = false;
  private loops: Promise<void>[] = [];
  private wakers = new Set<() => void>();

  constructor(
    private readonly store: DeliveryStore,
    private readonly http: HttpDelivery,
    private readonly options: WebhookSenderOptions,
  ) {}

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.options.concurrency }, () => this.loop());
  }

  /** New deliveries were recorded: idle senders look at once. */
  poke(): void {
    this.wakers.forEach((wake) => wake());
  }

  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await Promise.all(this.loops);
    this.http.close();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let sent = false;
      try {
        sent = await this.sendOne();
      } catch (error) {
        this.options.onError(error);
      }
      if (!sent && this.running) {
        await this.idle();
      }
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.options.idleMs);
      this.wakers.add(wake);
    });
  }

  private async sendOne(): Promise<boolean> {
    const claim = await this.store.claim();
    if (!claim) {
      return false;
    }
    const { delivery } = claim;
    // Whatever goes wrong in the attempt is a failed attempt: the claim must be settled to free its connection.
    const outcome = await this.attempt(delivery).catch((): AttemptOutcome => ({ ok: false, status: null, error: 'connection' }));
    // A crash here (after the endpoint answered, before the record) sends the delivery again, same id.
    this.options.failpoint('worker.webhook-after-send');
    const settlement = settlementOf(outcome, delivery.attempts + 1, this.options.schedule);
    await claim.settle(settlement);
    webhookAttempts.inc({ outcome: settlement.status === 'delivered' ? 'delivered' : settlement.error });
    if (settlement.status === 'failed') {
      webhookDeliveriesFailed.inc();
    }
    return true;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<AttemptOutcome | 'secret_unavailable'> {
    let secrets: string[];
    try {
      const associated = `webhook/${delivery.workspaceId}/${delivery.webhookId}`;
      secrets = [delivery.sealed, delivery.previousSealed]
        .filter((sealed) => sealed !== null && sealed !== undefined)
        .map((sealed) => openSecret(sealed as SealedSecret, this.options.privateKeks, associated));
    } catch {
      return 'secret_unavailable';
    }
    const timestamp = Math.floor(Date.now() / 1000);
    return this.http.post(
      delivery.url,
      {
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, delivery.id, timestamp, delivery.body),
      },
      delivery.body,
    );
  }
}

function settlementOf(outcome: AttemptOutcome | 'secret_unavailable', attempt: number, schedule: RetrySchedule): Settlement {
  if (outcome !== 'secret_unavailable' && outcome.ok) {
    return { status: 'delivered', responseStatus: outcome.status };
  }
  const responseStatus = outcome === 'secret_unavailable' ? null : outcome.status;
  const error = outcome === 'secret_unavailable' ? outcome : outcome.error;
  const retryInMs = delayAfter(attempt, schedule);
  return retryInMs === null ? { status: 'failed', responseStatus, error } : { status: 'pending', responseStatus, error, retryInMs };
}
