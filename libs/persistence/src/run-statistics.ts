import type { DataSource } from 'typeorm';

export interface NonTerminalRunStatistics {
  readonly state: string;
  readonly count: number;
  /** Seconds since the least recently changed run in this state last changed. */
  readonly oldestUnchangedSeconds: number;
}

/** Operator figures over the projection: one grouped scan of the non-terminal runs (kept few by design). */
export class RunStatisticsQuery {
  constructor(private readonly db: DataSource) {}

  async nonTerminalByState(): Promise<NonTerminalRunStatistics[]> {
    const rows: { state: string; count: string; oldest: string }[] = await this.db.query(
      `SELECT state, count(*) AS count, extract(epoch FROM now() - min(updated_at)) AS oldest
       FROM runs WHERE NOT terminal GROUP BY state`,
    );
    return rows.map((r) => ({ state: r.state, count: Number(r.count), oldestUnchangedSeconds: Number(r.oldest) }));
  }
}
