import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { encodeRunEvent, RunCommandHandler, RunEventStore, StreamNames, type Snapshot } from '@wrs/messaging';

/** Records one log line of a run, as its worker records the lines a workload prints. */
export interface LogLineAppender {
  /**
   * Reads the run now and answers how to record its next line later: the read is left out of what the
   * fan-out times, as the bare server's round has nothing like it. The send resolves to the event's
   * JSON as stored, which the relay sends as its `data`.
   */
  prepare(workspaceId: string, runId: string): Promise<() => Promise<string>>;
  close(): Promise<void>;
}

/**
 * The fan-out's one event: a `RecordLogs` command on a running run through the run command handler (the
 * domain's decision, numbered after the run's lines, appended after its last event and decided again on
 * a conflict), so the relay's streams get exactly one event and stay open, as the bare server's do. A
 * cancel, which the fan-out sent before, is two events (the request and `run.canceled`) and the end of
 * every stream, all while the clients were still reading the first.
 */
export async function logLineAppender(natsUrl: string, namespace: string): Promise<LogLineAppender> {
  const nc = await connect({ servers: natsUrl });
  const handler = new RunCommandHandler(new RunEventStore(jetstream(nc), await jetstreamManager(nc), new StreamNames(namespace)));
  return {
    async prepare(workspaceId, runId) {
      const prepared = await handler.current(workspaceId, runId);
      return async () => {
        // The line is numbered after the run's lines as last read; a run that recorded lines since
        // makes the domain skip it as already recorded, and then it is numbered again.
        let snapshot: Snapshot | undefined = prepared;
        for (let attempt = 1; attempt <= 5; attempt++) {
          const { state } = snapshot ?? (await handler.current(workspaceId, runId));
          if (state === null) {
            throw new Error(`run ${runId} has no events: no line can be recorded for it`);
          }
          const command = {
            type: 'RecordLogs' as const,
            fromIndex: state.logLines,
            lines: [{ stream: 'stdout' as const, line: 'one line to every stream of the fan-out' }],
            now: new Date().toISOString(),
          };
          const { appended } = await handler.execute(workspaceId, runId, command, `bench-fan-out-${randomUUID()}`, snapshot);
          snapshot = undefined;
          const [event] = appended;
          if (event?.type === 'run.log' && appended.length === 1) {
            return new TextDecoder().decode(encodeRunEvent(workspaceId, runId, event));
          }
        }
        throw new Error(`no line of run ${runId} could be recorded in 5 attempts`);
      };
    },
    close: () => nc.close(),
  };
}
