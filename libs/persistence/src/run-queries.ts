import { toRunView, type RunView } from '@wrs/domain';
import type { DataSource } from 'typeorm';
import { RunEntity } from './entities/run.entity';

export class RunQueries {
  constructor(private readonly db: DataSource) {}

  /** The run if it belongs to the workspace; a foreign run is exactly as absent as a missing one. */
  async find(workspaceId: string, runId: string): Promise<RunView | null> {
    const row = await this.db.getRepository(RunEntity).findOneBy({ id: runId, workspaceId });
    return row ? toRunView(row.body, row.version) : null;
  }

  /** How many of the workspace's runs are not finished: what the active-runs quota counts. */
  async countActive(workspaceId: string): Promise<number> {
    return this.db.getRepository(RunEntity).countBy({ workspaceId, terminal: false });
  }

  /** Unfinished runs placed on a provider and region: what a capacity limit counts. */
  async countPlaced(provider: string, region: string): Promise<number> {
    const rows: { n: string }[] = await this.db.query(
      `SELECT count(*) AS n FROM runs WHERE NOT terminal AND body->'placement'->>'provider' = $1 AND body->'placement'->>'region' = $2`,
      [provider, region],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Runs not yet in a terminal state, least recently changed first: what the reconciler drives. */
  async active(limit: number): Promise<RunView[]> {
    const rows = await this.db
      .getRepository(RunEntity)
      .find({ where: { terminal: false }, order: { updatedAt: 'ASC' }, take: limit });
    return rows.map((row) => toRunView(row.body, row.version));
  }
}
