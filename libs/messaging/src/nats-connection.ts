import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { DependencyError } from './dependency-error';
import { skipErrorOnSettledRequests } from './settled-request-cancel';

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  skipErrorOnSettledRequests();
  try {
    return await connect({
      servers: url,
      name,
      // Keep trying after a lost connection: a restarted NATS must not need a restarted service.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      // Otherwise every request builds two Error objects up front: 5-7 % of the worker's and relay's CPU
      // in a bench profile. Our errors carry their own context, so the shorter stacks lose nothing.
      noAsyncTraces: true,
    });
  } catch (error) {
    throw new DependencyError('NATS', url, error);
  }
}
