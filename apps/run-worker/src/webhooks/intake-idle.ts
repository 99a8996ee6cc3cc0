import type { JetStreamManager } from '@nats-io/jetstream';
import type { DataSource } from 'typeorm';

/** What the intake reads while no workspace has an endpoint: whether one exists, and the events stream's last sequence. */
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
}
