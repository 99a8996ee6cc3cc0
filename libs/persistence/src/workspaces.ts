import type { DataSource } from 'typeorm';
import { WorkspaceEntity } from './entities/workspace.entity';
import { runNamed, type NamedStatement } from './named-statement';

/** Read by every service's limits when their cached copy expires: named, planned once per connection. */
const LIMITS_OF: NamedStatement = { name: 'wrs_workspace_limits', text: 'SELECT limits FROM workspaces WHERE id = $1' };

export interface WorkspaceRecord {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

export class Workspaces {
  constructor(private readonly db: DataSource) {}

  async find(id: string): Promise<WorkspaceRecord | null> {
    const row = await this.db.getRepository(WorkspaceEntity).findOneBy({ id });
    return row ? { id: row.id, name: row.name, createdAt: row.createdAt.toISOString() } : null;
  }

  /** The workspace's own limit overrides (a JSON object), or null when it does not exist. */
  async limitsOf(id: string): Promise<Record<string, unknown> | null> {
    const rows = await runNamed<{ limits: Record<string, unknown> }>(this.db, LIMITS_OF, [id]);
    return rows[0]?.limits ?? null;
  }

  async setLimits(id: string, limits: Record<string, number>): Promise<void> {
    await this.db.query('UPDATE workspaces SET limits = $2 WHERE id = $1', [id, JSON.stringify(limits)]);
  }

  /** Creates the workspace if it does not exist; returns it either way. */
  async ensure(id: string, name: string): Promise<WorkspaceRecord> {
    await this.db.query('INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, now()) ON CONFLICT (id) DO NOTHING', [id, name]);
    const found = await this.find(id);
    if (!found) {
      throw new Error(`workspace ${id} vanished after creation`);
    }
    return found;
  }
}
