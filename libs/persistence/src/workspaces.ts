import type { DataSource } from 'typeorm';
import { WorkspaceEntity } from './entities/workspace.entity';

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

  /** Creates the workspace if it does not exist; returns it either way. */
  async ensure(id: string, name: string): Promise<WorkspaceRecord> {
    await this.db.query(
      'INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, now()) ON CONFLICT (id) DO NOTHING',
      [id, name],
    );
    const found = await this.find(id);
    if (!found) {
      throw new Error(`workspace ${id} vanished after creation`);
    }
    return found;
  }
}
