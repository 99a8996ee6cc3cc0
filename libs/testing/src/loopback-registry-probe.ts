import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CONTAINER_SOCKET, type Missing } from './optional-dependency';
import { LOOPBACK_REGISTRY_PORTS, REGISTRY_BINARY } from './loopback-registry';
import { BUSYBOX } from './registry-images';

// A child process, as the probe must answer synchronously: a plain HTTP server on a registry port, and
// a pull of a name on it. An engine that calls the port insecure speaks plain HTTP to it (and hears
// "no such name"); one that does not only tries TLS, which this server never sees as a request.
const PROBE = `
const http = require('node:http');
const [socketPath, csv] = process.argv.slice(1);
const ports = csv.split(',').map(Number);
let plain = false;
const server = http.createServer((req, res) => {
  plain = true;
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"errors":[{"code":"NAME_UNKNOWN","message":"probe"}]}');
});
server.on('clientError', (_e, socket) => socket.destroy());
const finish = (why) => { if (why) process.stdout.write(why); process.exit(0); };
const ask = (port, tries) => {
  const name = encodeURIComponent('127.0.0.1:' + port + '/wrs-probe');
  const req = http.request({ socketPath, method: 'POST', path: '/images/create?fromImage=' + name + '&tag=1', timeout: 15000 }, (res) => {
    let answer = '';
    res.on('data', (chunk) => { answer += chunk; });
    res.on('end', () => {
      if (plain) { finish(''); return; }
      // A busy engine can fail a pull before it reaches the registry: ask again before deciding.
      if (tries > 1) { setTimeout(() => ask(port, tries - 1), 1000); return; }
      finish('the engine at ' + socketPath + ' does not call 127.0.0.1:' + port + ' an insecure (plain HTTP) registry (it answered: ' + answer.trim().slice(-200) + ')');
    });
  });
  req.on('timeout', () => req.destroy());
  req.on('error', (e) => finish('the engine at ' + socketPath + ' did not answer a pull (' + e.message + ')'));
  req.end();
};
const listen = (i) => {
  if (i >= ports.length) { finish('no free port among ' + csv); return; }
  server.once('error', () => listen(i + 1));
  server.listen(ports[i], '127.0.0.1', () => ask(ports[i], 3));
};
listen(0);
`;

const HINT = 'bash scripts/podman/setup.sh (it lists the ports in a registries.conf.d drop-in and restarts an older Podman service)';

/**
 * What the pull tests need besides the engine: docker-registry, skopeo and busybox-static (apt), and
 * an engine that pulls from the loopback registry ports over plain HTTP.
 */
export function loopbackRegistryMissing(socket = CONTAINER_SOCKET): Missing {
  const absent = [REGISTRY_BINARY, '/usr/bin/skopeo', BUSYBOX].filter((path) => !existsSync(path));
  if (absent.length > 0) {
    return `no ${absent.join(', ')} (apt-get install docker-registry skopeo busybox-static)`;
  }
  const probe = spawnSync(process.execPath, ['-e', PROBE, socket, LOOPBACK_REGISTRY_PORTS.join(',')], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (probe.error || probe.status !== 0) {
    return `the registry probe did not finish (${probe.error?.message ?? `exit ${probe.status}`})`;
  }
  const why = probe.stdout.trim();
  return why ? `${why}; ${HINT}` : undefined;
}
