import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks: a workspace's endpoints (secrets sealed like provider keys), the deliveries owed to them,
 * and the intake's cursor in the events stream. Deliveries are written with the cursor in one
 * transaction, so each event is turned into deliveries exactly once, whatever crashes.
 */
export class Webhooks1763700000008 implements MigrationInterface {
  name = 'Webhooks1763700000008';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhooks (
      id uuid PRIMARY KEY,
      workspace_id text NOT NULL,
      url text NOT NULL,
      events text[] NOT NULL,
      sealed jsonb NOT NULL,
      previous_sealed jsonb,
      previous_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      secret_rotated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX webhooks_workspace ON webhooks (workspace_id, created_at)`);
    await q.query(`CREATE TABLE webhook_deliveries (
      id text PRIMARY KEY,
      webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      workspace_id text NOT NULL,
      run_id text NOT NULL,
      seq bigint NOT NULL,
      last_seq bigint NOT NULL,
      type text NOT NULL,
      payload jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      attempts integer NOT NULL DEFAULT 0,
      response_status integer,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_attempt_at timestamptz,
      next_attempt_at timestamptz,
      UNIQUE (webhook_id, seq)
    )`);
    await q.query(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_run ON webhook_deliveries (webhook_id, run_id, seq)`);
    await q.query(`CREATE INDEX webhook_deliveries_latest ON webhook_deliveries (webhook_id, created_at DESC, seq DESC)`);
    await q.query(`CREATE TABLE webhook_intake (name text PRIMARY KEY, seq bigint NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_intake`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
