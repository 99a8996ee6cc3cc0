import type { JsMsg } from '@nats-io/jetstream';
import { RunNotFoundError, type RunCommand } from '@wrs/domain';
import { createRunOf, type Disposition, type RunCommandMessage } from '@wrs/messaging';
import type { RunCommandHandler } from '@wrs/messaging';

/** A cancel can overtake its run's create when the create is being retried: wait for it this long. */
const MAX_DELIVERIES_BEFORE_CREATE = 50;

/** Turns the API's command messages into decisions. */
export class CommandConsumer {
  constructor(private readonly handler: RunCommandHandler) {}

  async handle(message: JsMsg): Promise<Disposition> {
    let command: RunCommandMessage;
    try {
      command = message.json<RunCommandMessage>();
    } catch {
      return 'drop';
    }
    try {
      // A create usually finds no run yet: decide on that and skip reading the (empty) stream.
      const snapshot = command.type === 'CreateRun' ? { state: null, version: 0 } : undefined;
      await this.handler.execute(command.workspaceId, command.runId, toDomain(command), `cmd-${message.seq}`, snapshot);
      return 'ack';
    } catch (error) {
      if (error instanceof RunNotFoundError) {
        return message.info.deliveryCount < MAX_DELIVERIES_BEFORE_CREATE ? { retryAfterMs: 200 } : 'drop';
      }
      throw error;
    }
  }
}

function toDomain(command: RunCommandMessage): RunCommand {
  switch (command.type) {
    case 'CreateRun':
      return createRunOf(command);
    case 'CancelRun':
      return { type: 'CancelRun', requestedBy: command.requestedBy, now: command.now };
  }
}
