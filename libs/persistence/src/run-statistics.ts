import type { DataSource } from 'typeorm';

export interface NonTerminalRunStatistics {
  /** The run's state; `waiting` for a queued run that waits for capacity (its `waiting` reason is `no_capacity`). */
  readonly state: string;
  readonly count: number;
  /** Seconds since the least recently changed run in this state last changed. */
  readonly oldestUnchangedSeconds: number;
}

/**
 * Operator figures over the projection: one grouped scan of the non-terminal runs (kept few by design).
 * A queued run that waits for capacity is counted apart: its row does not change while it waits, and it
 * is not stuck (the stuck-runs alert watches `queued`). One that waits for an unhealthy provider stays
 * `queued`: that is a fault to look at.
 */
export class RunStatisticsQuery {
  constructor(private readonly db: DataSource) {}

  async nonTerminalByState(): Promise<NonTerminalRunStatistics[]> {
    const rows: { state: string; count: string; oldest: string }[] = await this.db.query(
      `SELECT CASE WHEN state = 'queued' AND body->'waiting'->>'reason' = 'no_capacity' THEN 'waiting' ELSE state END AS state,
              count(*) AS count, extract(epoch FROM now() - min(updated_at)) AS oldest
       FROM runs WHERE NOT terminal GROUP BY 1`,
    );
    return rows.map((r) => ({ state: r.state, count: Number(r.count), oldestUnchangedSeconds: Number(r.oldest) }));
  }
}
