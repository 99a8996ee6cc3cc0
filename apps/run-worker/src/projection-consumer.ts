import type { JsMsg } from '@nats-io/jetstream';
import type { RunView } from '@wrs/domain';
import { toRunView } from '@wrs/domain';
import { decodeRunEvent, parseRunEventsSubject, type Disposition } from '@wrs/messaging';
import type { RunProjection } from '@wrs/persistence';

/** Projects each event into Postgres, acknowledges after the commit, then tells who cares. */
export class ProjectionConsumer {
  constructor(
    private readonly projection: RunProjection,
    private readonly onProjected: (run: RunView) => void,
  ) {}

  async handle(message: JsMsg): Promise<Disposition> {
    const ids = parseRunEventsSubject(message.subject);
    if (!ids) {
      return 'drop';
    }
    const { event } = decodeRunEvent(message.data);
    const result = await this.projection.project(ids.runId, message.seq, event);
    if (result.state) {
      this.onProjected(toRunView(result.state, result.version));
    }
    return 'ack';
  }
}
