import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { DependencyError } from './dependency-error';

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  try {
    return await connect({
      servers: url,
      name,
      // Keep trying after a lost connection: a restarted NATS must not need a restarted service.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      // Without this every request builds two Error objects up front (a stack for the caller's async
      // trace, and the timeout's): 5-7 % of the worker's and the relay's CPU in a bench profile. Our
      // errors carry their own context (codes, subjects, run ids); a request error's stack then ends
      // in the client library instead of at the caller.
      noAsyncTraces: true,
    });
  } catch (error) {
    throw new DependencyError('NATS', url, error);
  }
}
