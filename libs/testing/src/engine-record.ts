import { request } from 'node:http';
import { CONTAINER_SOCKET } from './optional-dependency';

/** The labels the container provider writes on every container it makes (apps/run-worker container.provider.ts). */
export const RUN_LABEL = 'io.workload-run-service.run';
export const OWNER_LABEL = 'io.workload-run-service.owner';

/** One container as the engine lists it, with the run its label names. */
export interface EngineContainer {
  readonly id: string;
  readonly runId: string;
  /** The engine's word: created, running, exited, ... */
  readonly state: string;
}

/** One lifecycle event of a labelled container, as the engine recorded it. */
export interface EngineEvent {
  readonly action: string;
  readonly runId: string;
  readonly containerId: string;
  /** The engine's own time of the event, in ms since the epoch (fractional). */
  readonly atMs: number;
}

/**
 * Asks the container engine itself (Podman's Docker API here), not the service: what exists and what
 * happened is what a test decides on, whatever the service believes.
 */
function engineGet(path: string, socket: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path: `/v1.41${path}`, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`the engine answered ${path} with HTTP ${res.statusCode}: ${body}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`the engine did not answer ${path} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Every container (stopped ones included) carrying all of `labels` (`key` or `key=value`). */
export async function engineContainers(labels: readonly string[], socket = CONTAINER_SOCKET): Promise<EngineContainer[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: labels }));
  const listed = JSON.parse(await engineGet(`/containers/json?all=true&filters=${filters}`, socket, 20_000)) as {
    Id: string;
    State: string;
    Labels?: Record<string, string> | null;
  }[];
  return listed.map((c) => ({ id: c.Id, runId: c.Labels?.[RUN_LABEL] ?? '', state: c.State }));
}

/** A container the engine still runs, or may still start: anything but a finished one. */
export function isLive(container: EngineContainer): boolean {
  return !['exited', 'stopped', 'dead'].includes(container.state);
}

/**
 * The container events (create, start, died, remove, ...) the engine recorded between two moments for
 * containers carrying all of `labels`. The engine answers once `untilMs` has passed, so callers pass now.
 */
export async function engineEvents(sinceMs: number, untilMs: number, labels: readonly string[], socket = CONTAINER_SOCKET): Promise<EngineEvent[]> {
  const filters = encodeURIComponent(JSON.stringify({ type: ['container'], label: labels }));
  const since = Math.floor(sinceMs / 1000) - 1;
  const until = Math.ceil(untilMs / 1000);
  const text = await engineGet(`/events?since=${since}&until=${until}&filters=${filters}`, socket, 60_000);
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { Action: string; Actor: { ID: string; Attributes?: Record<string, string> }; timeNano: number })
    .map((e) => ({ action: e.Action, runId: e.Actor.Attributes?.[RUN_LABEL] ?? '', containerId: e.Actor.ID, atMs: e.timeNano / 1e6 }));
}

/** Each run's events of one action (e.g. every `create`), by run id. */
export function eventsByRun(events: readonly EngineEvent[], action: string): Map<string, EngineEvent[]> {
  const out = new Map<string, EngineEvent[]>();
  for (const e of events.filter((x) => x.action === action)) {
    out.set(e.runId, [...(out.get(e.runId) ?? []), e]);
  }
  return out;
}
