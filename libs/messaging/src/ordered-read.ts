import type { ConsumeOptions, ConsumerMessages, JetStreamClient, JetStreamManager, OrderedConsumerOptions } from '@nats-io/jetstream';

/** How long the server keeps an ordered consumer nobody pulls from (a reader that died without closing). */
const INACTIVE_THRESHOLD_MS = 30_000;

/**
 * An ordered consumer that is deleted from the server once its reader is done with it. nats.js makes
 * ordered consumers with a five-minute inactivity threshold and leaves them on the server when they
 * are closed: at a few hundred event streams a second that is tens of thousands of idle consumers,
 * each of which the server considers on every message the stream stores. The deletion follows the
 * iterator's end (a `break` out of it, or `close()` while it is read); one that is never read is left
 * to the shorter inactivity threshold.
 */
export async function consumeOrdered(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  options: Partial<OrderedConsumerOptions>,
  consume?: ConsumeOptions,
): Promise<ConsumerMessages> {
  const consumer = await js.consumers.get(stream, { inactive_threshold: INACTIVE_THRESHOLD_MS, ...options });
  const messages = await consumer.consume(consume);
  void messages
    .closed()
    .then(async () => {
      // The current name: an ordered consumer that was reset (a gap, a lost heartbeat) has a new one.
      const { name } = await consumer.info(true);
      await jsm.consumers.delete(stream, name);
    })
    .catch(() => undefined);
  return messages;
}
