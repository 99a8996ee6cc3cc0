import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ProviderCredentials1763700000001 implements MigrationInterface {
  name = 'ProviderCredentials1763700000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE provider_credentials (
      id uuid PRIMARY KEY,
      workspace_id text NOT NULL,
      provider text NOT NULL,
      region text,
      fingerprint text NOT NULL,
      last_four text NOT NULL,
      sealed jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX provider_credentials_workspace ON provider_credentials (workspace_id, created_at)`);
    await q.query(`CREATE INDEX provider_credentials_fingerprint ON provider_credentials (fingerprint)`);
    await q.query(`ALTER TABLE workspaces ADD COLUMN limits jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces DROP COLUMN limits`);
    await q.query(`DROP TABLE provider_credentials`);
  }
}
