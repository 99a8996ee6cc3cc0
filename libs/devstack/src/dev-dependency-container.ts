import type { ContainerCreateOptions } from 'dockerode';
import type { DevDependencyImage, DevDependencyKind } from './dev-dependency-images';

/** The label on every container `npm start` makes for a server; its value is the kind. */
export const DEV_DEPENDENCY_LABEL = 'io.workload-run-service.dev-dependency';

/** The port each server listens on inside its container. */
const CONTAINER_PORTS: Record<DevDependencyKind, number> = { nats: 4222, postgres: 5432, redis: 6379 };

/** One server as a container: where it is published, and how it is started. */
export interface DevContainerSpec {
  readonly kind: DevDependencyKind;
  readonly name: string;
  readonly image: string;
  /** The variable that chose the image (WRS_IMAGE_NATS, ...). */
  readonly imageVariable: string;
  readonly hostIp: string;
  readonly hostPort: number;
  readonly containerPort: number;
  /** Arguments after the image; undefined keeps the image's own. */
  readonly cmd: readonly string[] | undefined;
  readonly env: readonly string[];
}

/** Host and port of a server URL (NATS_URL may be a bare host:port). */
export function addressOf(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url.includes('://') ? url : `nats://${url}`);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port) || defaultPort };
}

/**
 * The container that serves `url` on this machine, or why there can be none: only a loopback address
 * can be published here (another host is someone else's server).
 */
export function devContainerSpec(kind: DevDependencyKind, url: string, image: DevDependencyImage): DevContainerSpec | string {
  const containerPort = CONTAINER_PORTS[kind];
  const { host, port } = addressOf(url, containerPort);
  const hostIp = host === 'localhost' ? '127.0.0.1' : host;
  if (!/^127\.\d+\.\d+\.\d+$/.test(hostIp) && hostIp !== '::1') {
    return `${host} is not a loopback address of this machine`;
  }
  return {
    kind,
    name: `wrs-dev-${kind}-${port}`,
    image: image.image,
    imageVariable: image.variable,
    hostIp,
    hostPort: port,
    containerPort,
    ...serverSettings(kind, url),
  };
}

function serverSettings(kind: DevDependencyKind, url: string): Pick<DevContainerSpec, 'cmd' | 'env'> {
  switch (kind) {
    case 'nats':
      // JetStream on, its store in the container: a reused container keeps the streams.
      return { cmd: ['-js', '-sd', '/data'], env: [] };
    case 'redis':
      // As docker/compose.yaml runs it: a cache, nothing written to disk.
      return { cmd: ['redis-server', '--save', '', '--appendonly', 'no'], env: [] };
    case 'postgres': {
      // The URL's user and database, trusted without a password (local development only, on loopback).
      const parsed = new URL(url);
      const user = decodeURIComponent(parsed.username) || 'postgres';
      const database = decodeURIComponent(parsed.pathname.slice(1)) || user;
      return { cmd: undefined, env: [`POSTGRES_USER=${user}`, `POSTGRES_DB=${database}`, 'POSTGRES_HOST_AUTH_METHOD=trust'] };
    }
  }
}

/** What the engine API is asked to create. */
export function createOptions(spec: DevContainerSpec): ContainerCreateOptions {
  const port = `${spec.containerPort}/tcp`;
  return {
    name: spec.name,
    Image: spec.image,
    ...(spec.cmd ? { Cmd: [...spec.cmd] } : {}),
    Env: [...spec.env],
    Labels: { [DEV_DEPENDENCY_LABEL]: spec.kind },
    ExposedPorts: { [port]: {} },
    HostConfig: { PortBindings: { [port]: [{ HostIp: spec.hostIp, HostPort: String(spec.hostPort) }] } },
  };
}

/** The same container as a command line, for someone without an engine API at hand (podman takes the same arguments). */
export function runCommand(spec: DevContainerSpec): string {
  const publish = spec.hostIp.includes(':') ? `[${spec.hostIp}]` : spec.hostIp;
  const args = [
    'docker',
    'run',
    '-d',
    '--name',
    spec.name,
    '--label',
    `${DEV_DEPENDENCY_LABEL}=${spec.kind}`,
    '-p',
    `${publish}:${spec.hostPort}:${spec.containerPort}`,
    ...spec.env.flatMap((e) => ['-e', e]),
    spec.image,
    ...(spec.cmd ?? []),
  ];
  return args.map(shellWord).join(' ');
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
