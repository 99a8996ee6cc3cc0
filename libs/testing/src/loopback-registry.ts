import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Loopback ports a test registry may use. Podman must call a plain-HTTP registry insecure, and its
 * service reads registries.conf once, so scripts/podman/setup.sh lists these same ports in a drop-in.
 */
export const LOOPBACK_REGISTRY_PORTS = [15000, 15001, 15002, 15003, 15004, 15005, 15006, 15007] as const;
export const REGISTRY_BINARY = '/usr/bin/docker-registry';

export interface LoopbackRegistry {
  /** `127.0.0.1:<port>`: the registry part of an image name. */
  readonly host: string;
  stop(): Promise<void>;
}

// bcrypt of a random password nobody kept: the auth tests need a registry that refuses, never one that admits.
const HTPASSWD = 'wrs:$2b$05$eVMpBYgXM2R90cT2Ip8NtOpkI.zh1S9MQLVbpLoTQ97DIwkeyM1oe\n';

/**
 * Debian's docker-registry (distribution 2.8) on a free port of LOOPBACK_REGISTRY_PORTS, with its
 * config and storage in a temporary directory; with `auth`, it asks for htpasswd credentials.
 */
export async function startLoopbackRegistry(options: { auth?: boolean } = {}): Promise<LoopbackRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'wrs-registry-'));
  for (const port of await freePorts()) {
    const config = join(dir, `config-${port}.yml`);
    await writeFile(join(dir, 'htpasswd'), HTPASSWD);
    await writeFile(config, configOf(dir, port, options.auth === true));
    const child = spawn(REGISTRY_BINARY, ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (await listening(child)) {
      return {
        host: `127.0.0.1:${port}`,
        stop: async () => {
          await stopChild(child);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    // Another test took the port between our check and the registry's bind: try the next one.
    await stopChild(child);
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`no free port for a loopback registry among ${LOOPBACK_REGISTRY_PORTS.join(', ')}`);
}

/** Accepts connections on a free registry port and never answers: a registry that hangs. */
export async function startSilentRegistry(): Promise<LoopbackRegistry> {
  const sockets = new Set<Socket>();
  for (const port of await freePorts()) {
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    });
    if (await listens(server, port)) {
      return {
        host: `127.0.0.1:${port}`,
        stop: async () => {
          sockets.forEach((s) => s.destroy());
          await new Promise((resolve) => server.close(resolve));
        },
      };
    }
  }
  throw new Error(`no free port for a silent registry among ${LOOPBACK_REGISTRY_PORTS.join(', ')}`);
}

function configOf(dir: string, port: number, auth: boolean): string {
  const lines = [
    'version: 0.1',
    'log:',
    // info: the line "listening on" tells us this process has the port.
    '  level: info',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'data')}`,
    'http:',
    `  addr: 127.0.0.1:${port}`,
  ];
  const authLines = ['auth:', '  htpasswd:', '    realm: wrs-test', `    path: ${join(dir, 'htpasswd')}`];
  return [...lines, ...(auth ? authLines : []), ''].join('\n');
}

/** The listed ports nothing listens on now, in a random order (parallel test files pick different ones). */
async function freePorts(): Promise<number[]> {
  const shuffled = [...LOOPBACK_REGISTRY_PORTS].sort(() => Math.random() - 0.5);
  const free: number[] = [];
  for (const port of shuffled) {
    const probe = createServer();
    if (await listens(probe, port)) {
      free.push(port);
      await new Promise((resolve) => probe.close(resolve));
    }
  }
  return free;
}

function listens(server: Server, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
}

/**
 * True once this registry process says it listens (a poll of the port could reach another test's
 * registry); false if it exits first, e.g. because another test bound the port meanwhile.
 */
function listening(child: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = '';
    const timer = setTimeout(() => resolve(false), 10_000);
    // Read to the end either way: a full pipe would stall the registry.
    child.stderr?.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      if (/listening on/.test(seen)) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
