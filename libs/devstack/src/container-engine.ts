import { request } from 'node:http';
import { join } from 'node:path';

/** A place a Docker Engine API may listen, and why `npm start` looks there. */
export interface EngineCandidate {
  readonly socket: string;
  /** In words, for the start-up message: `DOCKER_HOST`, `Podman's rootful socket`, ... */
  readonly source: string;
}

export interface EngineSearch {
  /** The first candidate that answered `/_ping`. */
  readonly found: EngineCandidate | undefined;
  /** Every candidate asked, with what it answered (for the message when none did). */
  readonly tried: readonly string[];
}

/**
 * Where to look, in order. A socket named explicitly (CONTAINER_ENGINE_SOCKET, the service's own
 * variable, or DOCKER_HOST) is the only one tried: someone who points at an engine means that one, and
 * silently using another would be a surprise. Otherwise Docker's socket, then Podman's rootful and
 * rootless sockets.
 */
export function engineCandidates(
  env: Readonly<Record<string, string | undefined>>,
  uid = process.getuid?.() ?? 0,
): EngineCandidate[] | string {
  if (env['CONTAINER_ENGINE_SOCKET']) {
    return [{ socket: env['CONTAINER_ENGINE_SOCKET'], source: 'CONTAINER_ENGINE_SOCKET' }];
  }
  const dockerHost = env['DOCKER_HOST'];
  if (dockerHost) {
    if (!dockerHost.startsWith('unix://')) {
      // The container provider talks to a unix socket (CONTAINER_ENGINE_SOCKET); a TCP engine is not supported.
      return `DOCKER_HOST=${dockerHost} is not a unix:// socket, which is all the container provider can use`;
    }
    return [{ socket: dockerHost.slice('unix://'.length), source: 'DOCKER_HOST' }];
  }
  const runtimeDir = env['XDG_RUNTIME_DIR'] || `/run/user/${uid}`;
  return [
    { socket: '/var/run/docker.sock', source: "Docker's socket" },
    { socket: '/run/podman/podman.sock', source: "Podman's rootful socket" },
    { socket: join(runtimeDir, 'podman', 'podman.sock'), source: "Podman's rootless socket" },
  ];
}

/** Asks each candidate's `/_ping` in turn; the first that answers 200 is the engine. */
export async function findContainerEngine(
  env: Readonly<Record<string, string | undefined>>,
  ping: (socket: string) => Promise<string | undefined> = pingEngine,
): Promise<EngineSearch> {
  const candidates = engineCandidates(env);
  if (typeof candidates === 'string') {
    return { found: undefined, tried: [candidates] };
  }
  const tried: string[] = [];
  for (const candidate of candidates) {
    const problem = await ping(candidate.socket);
    if (problem === undefined) {
      return { found: candidate, tried };
    }
    tried.push(`${candidate.source} ${candidate.socket}: ${problem}`);
  }
  return { found: undefined, tried };
}

/** Undefined when the engine answers `/_ping` with 200; else what went wrong, in a few words. */
export function pingEngine(socket: string, timeoutMs = 3000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path: '/_ping', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? undefined : `answered ${res.statusCode}`);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ENOENT' ? 'no such socket' : (error.code ?? error.message)));
    req.end();
  });
}
