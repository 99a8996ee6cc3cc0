import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleting an endpoint no longer cascades to its deliveries: the cascade had to wait for the row lock a
 * sender holds for a whole attempt (up to WEBHOOK_TIMEOUT_MS), with one of the api's pooled connections
 * per waiting delete, and an intake inserting a delivery for that endpoint waited behind it. The
 * endpoint's row goes at once and the worker's retention job removes the deliveries left without one
 * when no sender holds them (also those an api of the previous version leaves, deleting without the
 * cascade); a delivery whose endpoint is gone is never claimed again.
 */
export class WebhookDeleteWithoutLocks1763700000010 implements MigrationInterface {
  name = 'WebhookDeleteWithoutLocks1763700000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_webhook_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE`,
    );
  }
}
