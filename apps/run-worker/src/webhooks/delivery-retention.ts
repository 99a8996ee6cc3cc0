import type { DataSource } from 'typeorm';

/** Finished deliveries (delivered or failed) are kept this long for `GET /webhooks/{id}/deliveries`. */
export const DELIVERY_RETENTION_DAYS = 7;

/** The most rows one statement deletes: a large backlog goes in short steps, never one long lock. */
const BATCH = 1000;

/**
 * Removes finished deliveries older than the retention, now and then, and every delivery of a deleted
 * endpoint once no sender holds it; other pending ones are never removed. Every worker may run it: the
 * deletes skip locked rows, so they wait neither on each other nor on an attempt in flight.
 */
export class DeliveryRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly db: DataSource,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    const pass = (): void => {
      this.running = this.prune().catch(this.onError);
    };
    pass();
    this.timer = setInterval(pass, this.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Answers how many deliveries were removed. */
  async prune(days = DELIVERY_RETENTION_DAYS): Promise<number> {
    const finished = await this.inBatches(
      `SELECT id FROM webhook_deliveries
        WHERE status <> 'pending' AND COALESCE(last_attempt_at, created_at) < now() - make_interval(days => $1)
        LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [days],
    );
    // Left by a delete while a sender held them, by an intake that read the endpoint just before its
    // delete, or by an api of the previous version (its delete counted on the cascade).
    const orphaned = await this.inBatches(
      `SELECT d.id FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)
        LIMIT ${BATCH} FOR UPDATE OF d SKIP LOCKED`,
      [],
    );
    return finished + orphaned;
  }

  private async inBatches(select: string, params: unknown[]): Promise<number> {
    let removed = 0;
    for (;;) {
      const [, count] = (await this.db.query(`DELETE FROM webhook_deliveries WHERE id IN (${select})`, params)) as [unknown, number];
      removed += count;
      if (count < BATCH) {
        return removed;
      }
    }
  }
}
