import { isTerminalEventType, type RunEvent } from '@wrs/domain';
import { projectionLag, runsFinished } from '@wrs/observability';

/**
 * After an event's projection committed for the first time (a redelivery counts nothing): how long
 * after its time it reached Postgres, and, for a terminal event, one more run finished in that state.
 */
export function observeProjected(event: RunEvent, now = Date.now()): void {
  const at = Date.parse(event.data.at);
  if (Number.isFinite(at)) {
    projectionLag.observe(Math.max(0, now - at) / 1000);
  }
  if (isTerminalEventType(event.type)) {
    runsFinished.inc({ state: event.type.replace(/^run\./, '') });
  }
}
