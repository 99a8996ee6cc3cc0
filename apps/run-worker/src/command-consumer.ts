import type { JsMsg } from '@nats-io/jetstream';
import { RunNotFoundError } from '@wrs/domain';
import type { Disposition, RunCommandHandler } from '@wrs/messaging';

/**
 * A cancel as an api of the previous version published it (`<ns>.cmd.cancel.<workspace>.<run>`): this
 * version's api decides cancels itself and publishes none. Kept for one release so that a rolling
 * upgrade loses no cancel an old api accepted; remove it, and `cmd.>` from the command stream, after.
 */
interface LegacyCancelMessage {
  readonly type: 'CancelRun';
  readonly runId: string;
  readonly workspaceId: string;
  readonly requestedBy: string;
  readonly now: string;
}

/** Decides the cancels an api of the previous version left on the command stream; anything else is dropped. */
export class CommandConsumer {
  constructor(private readonly handler: RunCommandHandler) {}

  async handle(message: JsMsg): Promise<Disposition> {
    let command: LegacyCancelMessage;
    try {
      command = message.json<LegacyCancelMessage>();
    } catch {
      return 'drop';
    }
    // Creates went to the run's events directly since the previous version: no create command is left to decide.
    if (command.type !== 'CancelRun') {
      return 'drop';
    }
    try {
      await this.handler.execute(
        command.workspaceId,
        command.runId,
        { type: 'CancelRun', requestedBy: command.requestedBy, now: command.now },
        `cmd-${message.seq}`,
      );
      return 'ack';
    } catch (error) {
      if (error instanceof RunNotFoundError) {
        return 'drop';
      }
      throw error;
    }
  }
}
