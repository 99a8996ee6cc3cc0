import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats } from '@wrs/messaging';

/**
 * A baseline's NATS connection with the client settings the services use (connectNats: no async stack
 * traces, no Error per answered request), so a baseline does not pay what the services no longer do.
 * The Error skip is process-wide: the bench's own other connections get it too.
 */
export function connectAsServicesDo(url: string): Promise<NatsConnection> {
  return connectNats(url, 'bench-baseline');
}
