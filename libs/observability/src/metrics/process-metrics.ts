import { collectDefaultMetrics } from 'prom-client';
import { metricsRegistry } from './catalogue';

let enabled = false;

/** Node's process metrics (CPU, memory, event-loop lag, GC) and a `service` label on every series. */
export function enableProcessMetrics(service: string): void {
  metricsRegistry.setDefaultLabels({ service });
  if (!enabled) {
    enabled = true;
    collectDefaultMetrics({ register: metricsRegistry });
  }
}
