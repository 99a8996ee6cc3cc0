import {
  DeliverPolicy,
  type ConsumeOptions,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type OrderedConsumerOptions,
} from '@nats-io/jetstream';
import type { StreamNames } from './names';

/** How long the server keeps an ordered consumer nobody pulls from (a reader that died without closing). */
const INACTIVE_THRESHOLD_MS = 30_000;

/**
 * An ordered consumer deleted from the server when its reader is done (a `break`, or `close()`).
 * nats.js leaves closed ones for five minutes, and at hundreds of event streams a second the server
 * would check tens of thousands of idle consumers on every stored message.
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

/**
 * Every run's events in stream order, from sequence `startSeq` or from the first stored event
 * (`'first'`), on an ordered consumer that `consumeOrdered` deletes when closed.
 */
export function readRunEventsFrom(
  js: JetStreamClient,
  jsm: JetStreamManager,
  names: StreamNames,
  startSeq: number | 'first',
  consume?: ConsumeOptions,
): Promise<ConsumerMessages> {
  const from: Partial<OrderedConsumerOptions> =
    startSeq === 'first' ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq };
  return consumeOrdered(js, jsm, names.eventsStream, { filter_subjects: names.allRunEvents(), ...from }, consume);
}
