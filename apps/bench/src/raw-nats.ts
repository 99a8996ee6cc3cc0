import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { skipErrorOnSettledRequests } from '@wrs/messaging';

/**
 * A baseline's NATS connection with the client settings the services use (connectNats): no async stack
 * traces, no Error per answered request. A baseline must not pay what the services no longer do.
 */
export function connectAsServicesDo(url: string): Promise<NatsConnection> {
  skipErrorOnSettledRequests();
  return connect({ servers: url, noAsyncTraces: true });
}
