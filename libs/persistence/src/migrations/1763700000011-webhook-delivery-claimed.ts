import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `claimed_at`: when a sender first took the delivery, committed before its first attempt. Log lines
 * join only a delivery never claimed: one whose attempt was made but not recorded (the worker died
 * after the POST, or the outcome's write rolled back) must be sent again with the same body.
 * A pending delivery already due may have been sent that way, so it counts as claimed.
 */
export class WebhookDeliveryClaimed1763700000011 implements MigrationInterface {
  name = 'WebhookDeliveryClaimed1763700000011';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN claimed_at timestamptz`);
    await q.query(
      `UPDATE webhook_deliveries SET claimed_at = COALESCE(last_attempt_at, now()) WHERE status = 'pending' AND next_attempt_at <= now()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN claimed_at`);
  }
}
