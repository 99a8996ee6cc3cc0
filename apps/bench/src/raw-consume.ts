import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';

/**
 * How the raw consumer acknowledges: each message as it is taken (`each`: the client writes each
 * acknowledgement to the socket on its own), each message but 256 at a time (`each-per-batch`: their
 * acknowledgements go out in one write, as the projection's consumer settles a batch), or one ack-all per
 * 256 messages (`all-per-batch`). The last is not safe for the projection (replicas share its durable
 * consumer, and an ack-all would acknowledge another replica's messages not yet stored): it is measured
 * to say what the acknowledgement of each message costs.
 */
export type RawAcks = 'each' | 'each-per-batch' | 'all-per-batch';

const ACKS_PER_BATCH = 256;

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
    ack_policy: acks === 'all-per-batch' ? AckPolicy.All : AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filterSubject,
    max_ack_pending: 1000,
  });
  try {
    const messages = await (await js.consumers.get(stream, durable)).consume({ max_messages: 256 });
    const started = performance.now();
    let taken = 0;
    const held: JsMsg[] = [];
    for await (const message of messages) {
      taken += 1;
      const batchEnds = taken % ACKS_PER_BATCH === 0 || taken >= total;
      if (acks === 'each' || (acks === 'all-per-batch' && batchEnds)) {
        message.ack();
      } else if (acks === 'each-per-batch') {
        held.push(message);
        if (batchEnds) {
          // One synchronous loop: the client writes the acknowledgements queued in one tick together.
          held.splice(0).forEach((m) => m.ack());
        }
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
