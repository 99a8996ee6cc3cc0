import type { JetStreamManager } from '@nats-io/jetstream';
import type { DataSource } from 'typeorm';

/**
 * What the intake needs to stay idle while no workspace has an endpoint: whether any exists, the
 * events stream's last sequence, and a cursor moved past events nobody can be owed.
 */
export class IntakeIdle {
  constructor(
    private readonly db: DataSource,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
  ) {}

  async anyEndpoint(): Promise<boolean> {
    const rows: unknown[] = await this.db.query('SELECT 1 FROM webhooks LIMIT 1');
    return rows.length > 0;
  }

  async lastSeq(): Promise<number> {
    const info = await this.jsm.streams.info(this.stream);
    return info.state.last_seq;
  }

  /** Moves the cursor forward to `seq`: never back (another replica may be further on), and no write when it is there. */
  async skipTo(name: string, seq: number): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_intake (name, seq) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET seq = EXCLUDED.seq WHERE webhook_intake.seq < EXCLUDED.seq`,
      [name, seq],
    );
  }
}
