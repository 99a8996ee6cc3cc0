import type { JetStreamManager } from '@nats-io/jetstream';
import { type ConsumerInfoSnapshot, setConsumerInfoSource, setRunStatisticsSource } from '@wrs/observability';
import { RunStatisticsQuery } from '@wrs/persistence';
import type { DataSource } from 'typeorm';

/**
 * The worker's scrape-time gauges: its JetStream consumers' backlog and redeliveries (from consumer
 * info) and the non-terminal runs by state with how long the stalest has not changed (for stuck runs).
 */
export function reportWorkerGauges(
  jsm: JetStreamManager,
  consumers: readonly { readonly label: string; readonly stream: string; readonly durable: string }[],
  db: DataSource,
): () => void {
  setConsumerInfoSource(() =>
    Promise.all(
      consumers.map(async ({ label, stream, durable }): Promise<ConsumerInfoSnapshot> => {
        const info = await jsm.consumers.info(stream, durable);
        return { consumer: label, pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered };
      }),
    ),
  );
  const statistics = new RunStatisticsQuery(db);
  setRunStatisticsSource(() => statistics.nonTerminalByState());
  return () => {
    setConsumerInfoSource(undefined);
    setRunStatisticsSource(undefined);
  };
}
