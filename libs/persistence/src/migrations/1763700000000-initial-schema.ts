import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE workspaces (
      id text PRIMARY KEY,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE runs (
      id uuid PRIMARY KEY,
      workspace_id text NOT NULL,
      state text NOT NULL,
      terminal boolean NOT NULL,
      version bigint NOT NULL,
      body jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX runs_workspace_created ON runs (workspace_id, created_at DESC)`);
    await q.query(`CREATE INDEX runs_active ON runs (updated_at) WHERE NOT terminal`);
    await q.query(`CREATE TABLE run_events (
      run_id uuid NOT NULL,
      seq bigint NOT NULL,
      type text NOT NULL,
      event jsonb NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE run_events`);
    await q.query(`DROP TABLE runs`);
    await q.query(`DROP TABLE workspaces`);
  }
}
