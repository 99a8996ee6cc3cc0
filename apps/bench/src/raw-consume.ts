import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';

/**
 * Reads the first `total` messages of a stream's subject with a durable pull consumer and acknowledges
 * each, as the projection's consumer does, doing nothing else: what taking a backlog out of JetStream
 * costs here at best. Answers messages per second; the consumer is removed afterwards.
 */
export async function rawConsumeRate(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  filterSubject: string,
  total: number,
): Promise<number> {
  const durable = `bench_raw_consume_${Date.now()}`;
  await jsm.consumers.add(stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filterSubject,
    max_ack_pending: 1000,
  });
  try {
    const messages = await (await js.consumers.get(stream, durable)).consume({ max_messages: 256 });
    const started = performance.now();
    let taken = 0;
    for await (const message of messages) {
      message.ack();
      if (++taken >= total) {
        break;
      }
    }
    const rate = total / ((performance.now() - started) / 1000);
    await messages.close();
    return rate;
  } finally {
    await jsm.consumers.delete(stream, durable).catch(() => false);
  }
}
