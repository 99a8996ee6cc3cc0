import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { RunEvent } from '@wrs/domain';
import { encodeRunEvent, RunEventStore, StreamNames } from '@wrs/messaging';

/** Appends one event to a run as its worker would, and says what was stored. */
export interface LogLineAppender {
  /** Appends a `run.log` line after the run's last event; resolves to the event's JSON as stored (what the relay sends as `data`). */
  append(workspaceId: string, runId: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The fan-out's one event: a log line appended to a running run through the run event store (after its
 * last event, naming it, guarded by its sequence), so the relay's streams get exactly one event and stay
 * open, as the bare server's do. A cancel, which the fan-out sent before, is two events (the request and
 * `run.canceled`) and the end of every stream, all while the clients were still reading the first.
 */
export async function logLineAppender(natsUrl: string, namespace: string): Promise<LogLineAppender> {
  const nc = await connect({ servers: natsUrl });
  const store = new RunEventStore(jetstream(nc), await jetstreamManager(nc), new StreamNames(namespace));
  let index = 0;
  return {
    async append(workspaceId, runId) {
      const event: RunEvent = {
        type: 'run.log',
        data: { index: index++, stream: 'stdout', line: 'one line to every stream of the fan-out', at: new Date().toISOString() },
      };
      const version = await store.version(workspaceId, runId);
      await store.append(workspaceId, runId, [event], version, `bench-fan-out-${index}`);
      return new TextDecoder().decode(encodeRunEvent(workspaceId, runId, event));
    },
    close: () => nc.close(),
  };
}
