import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';

/**
 * How the raw consumer acknowledges: each message, as the projection's consumer does, or (`all-per-batch`)
 * one ack-all per 256 messages. The second is not safe for the projection (replicas share its durable
 * consumer, and an ack-all would acknowledge another replica's messages not yet stored): it is measured
 * to say what the acknowledgement of each message costs.
 */
export type RawAcks = 'each' | 'all-per-batch';

const ACK_ALL_EVERY = 256;

/**
 * Reads the first `total` messages of a stream's subject with a durable pull consumer and acknowledges
 * them as `acks` says, doing nothing else: what taking a backlog out of JetStream costs here at best.
 * Answers messages per second; the consumer is removed afterwards.
 */
export async function rawConsumeRate(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  filterSubject: string,
  total: number,
  acks: RawAcks = 'each',
): Promise<number> {
  const durable = `bench_raw_consume_${Date.now()}`;
  await jsm.consumers.add(stream, {
    durable_name: durable,
    ack_policy: acks === 'each' ? AckPolicy.Explicit : AckPolicy.All,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filterSubject,
    max_ack_pending: 1000,
  });
  try {
    const messages = await (await js.consumers.get(stream, durable)).consume({ max_messages: 256 });
    const started = performance.now();
    let taken = 0;
    for await (const message of messages) {
      taken += 1;
      if (acks === 'each' || taken % ACK_ALL_EVERY === 0 || taken >= total) {
        message.ack();
      }
      if (taken >= total) {
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
