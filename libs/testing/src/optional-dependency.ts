import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * What a test needs from the machine beyond NATS, Postgres and Redis (a container engine, Chromium,
 * built images). Each probe answers synchronously, at module load, because Jest decides between
 * `describe` and `describe.skip` before any hook runs; it returns why the dependency is missing, or
 * undefined when it is there.
 */
export type Missing = string | undefined;

export const CONTAINER_SOCKET = process.env['WRS_TEST_CONTAINER_SOCKET'] ?? '/run/podman/podman.sock';
export const CONTAINER_IMAGE = process.env['WRS_TEST_CONTAINER_IMAGE'] ?? 'localhost/wrs-test/base:bookworm';
export const CHROMIUM = process.env['WRS_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

// A child process asks the engine over its socket: an HTTP request cannot be made synchronously in-process.
const ENGINE_PROBE = `
const { request } = require('node:http');
const [socketPath, image] = process.argv.slice(1);
const ask = (path) => new Promise((resolve) => {
  const req = request({ socketPath, path: '/v1.41' + path, timeout: 5000 }, (res) => { res.resume(); resolve(res.statusCode); });
  req.on('timeout', () => req.destroy());
  req.on('error', () => resolve(0));
  req.end();
});
(async () => {
  const ping = await ask('/_ping');
  if (ping !== 200) { process.stdout.write('no container engine answers at ' + socketPath + ' (' + (ping || 'no connection') + ')'); return; }
  const found = await ask('/images/' + encodeURIComponent(image) + '/json');
  if (found !== 200) { process.stdout.write('the engine at ' + socketPath + ' has no image ' + image); }
})();
`;

const SETUP_HINT = 'run scripts/podman/setup.sh';

/** A Docker Engine API (Podman here) on `socket` that holds `image`. */
export function containerEngineMissing(socket = CONTAINER_SOCKET, image = CONTAINER_IMAGE): Missing {
  const probe = spawnSync(process.execPath, ['-e', ENGINE_PROBE, socket, image], { encoding: 'utf8', timeout: 20_000 });
  if (probe.error || probe.status !== 0) {
    return `the container engine probe did not finish (${probe.error?.message ?? `exit ${probe.status}`})`;
  }
  const why = probe.stdout.trim();
  return why ? `${why}; ${SETUP_HINT}` : undefined;
}

/** An executable at `path` (Chromium, a server binary). */
export function executableMissing(path: string, install: string): Missing {
  return existsSync(path) ? undefined : `no ${path} (${install})`;
}

export function chromiumMissing(): Missing {
  return executableMissing(CHROMIUM, 'apt-get install chromium');
}

/** Local images in Podman's store, e.g. the service images of scripts/podman/build-images.sh. */
export function podmanImagesMissing(images: readonly string[], env: NodeJS.ProcessEnv): Missing {
  const absent = images.filter((image) => spawnSync('podman', ['image', 'exists', image], { env, timeout: 20_000 }).status !== 0);
  return absent.length === 0 ? undefined : `images not built: ${absent.join(', ')} (bash scripts/podman/build-images.sh)`;
}
