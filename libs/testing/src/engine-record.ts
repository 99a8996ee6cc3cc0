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

/**
 * Asks the container engine itself (Podman's Docker API here), not the service: what exists and what
 * happened is what a test decides on, whatever the service believes. Unversioned paths (the engine's
 * own API version), as the provider uses: Docker 29 refuses anything below 1.44.
 */
export function engineGet(path: string, socket: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(body) : reject(new Error(`the engine answered ${path} with HTTP ${res.statusCode}: ${body}`)),
      );
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

/** Removes one container, running or not (a test's own cleanup after it has decided). */
export function engineRemove(id: string, socket = CONTAINER_SOCKET): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, method: 'DELETE', path: `/containers/${id}?force=true`, timeout: 20_000 }, (res) => {
      res.resume();
      res.on('end', () =>
        [200, 204, 404].includes(res.statusCode ?? 0)
          ? resolve()
          : reject(new Error(`the engine did not remove ${id} (HTTP ${res.statusCode})`)),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`the engine did not answer the removal of ${id}`)));
    req.on('error', reject);
    req.end();
  });
}

/** Why the engine cannot be used (no answer to /_ping), or undefined when it can. */
export async function engineUnusable(socket = CONTAINER_SOCKET): Promise<string | undefined> {
  try {
    await engineGet('/_ping', socket, 5_000);
    return undefined;
  } catch (error) {
    return `no container engine answers at ${socket} (${String(error)}); run scripts/podman/setup.sh`;
  }
}

/** One call that changes something (create, start, remove); any answer of 300 or more is an error. */
export function engineSend(method: string, path: string, body?: unknown, socket = CONTAINER_SOCKET): Promise<void> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { socketPath: socket, method, path, timeout: 20_000, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          (res.statusCode ?? 0) < 300
            ? resolve()
            : reject(new Error(`the engine answered ${method} ${path} with HTTP ${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`the engine did not answer ${method} ${path}`)));
    req.on('error', reject);
    req.end(payload);
  });
}
