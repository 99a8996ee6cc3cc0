import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { parseAnnouncement } from '@wrs/observability';
import { containerRunArgs } from './container-run-args';
import { waitFor } from './local-network';
import type { StackSettings } from './stack-settings';

type Kind = 'api' | 'stream-relay' | 'run-worker' | 'gateway' | 'migrate';

/** A process of the stack: `api`, `stream-relay`, `run-worker`, `gateway`, or a replica like `stream-relay-2`. */
export type ServiceName = string;

const MAINS: Record<Kind, string> = {
  api: 'apps/api/src/main.js',
  'stream-relay': 'apps/stream-relay/src/main.js',
  'run-worker': 'apps/run-worker/src/main.js',
  gateway: 'apps/gateway/src/main.js',
  migrate: 'apps/run-worker/src/migrate.js',
};

/**
 * The whole stack as child processes on this machine: migrate, then api, stream-relay, run-worker
 * (each possibly several times) and the gateway that gives clients one base URL. `npm start` and the
 * end-to-end tests both use it, and a test can kill and restart any one process.
 */
export class LocalStack {
  readonly processes = new Map<ServiceName, ChildProcess>();
  private readonly ports = new Map<ServiceName, number>();
  /** Each process's operator port (health and metrics), never behind the gateway. */
  private readonly metricsPorts = new Map<ServiceName, number>();
  /** Until a process prints where it listens (its announcement line). */
  private readonly announced = new Map<ServiceName, Promise<void>>();
  private readonly onAnnouncement = new Map<ServiceName, (line: string) => void>();

  constructor(private readonly settings: StackSettings) {}

  get baseUrl(): string {
    const port = this.ports.get('gateway');
    if (port === undefined) {
      throw new Error('the gateway has not started');
    }
    return `http://127.0.0.1:${port}/api/v1`;
  }

  /** The names of the processes of one kind, e.g. ['stream-relay', 'stream-relay-2']. */
  instances(kind: 'api' | 'stream-relay' | 'run-worker'): ServiceName[] {
    const count = this.settings.replicas?.[kind] ?? 1;
    return Array.from({ length: count }, (_, i) => (i === 0 ? kind : `${kind}-${i + 1}`));
  }

  async start(): Promise<void> {
    for (const [kind, fixed] of [
      ['api', this.settings.apiPort],
      ['stream-relay', this.settings.relayPort],
      ['gateway', this.settings.gatewayPort],
    ] as const) {
      if (fixed) {
        this.ports.set(kind, fixed);
      }
    }
    await this.runToCompletion('migrate');
    // The gateway is told where the api and relays are, so it starts once they have said where they listen.
    const backends = [...this.instances('api'), ...this.instances('stream-relay'), ...this.instances('run-worker')];
    for (const service of backends) {
      this.startService(service);
    }
    await Promise.all(backends.map((service) => this.waitUntilAnnounced(service)));
    this.startService('gateway');
    await this.waitUntilAnnounced('gateway');
    await waitFor(`${this.baseUrl}/version`, this.startTimeoutMs());
  }

  /**
   * Starts one process. It binds port 0 (or, started again, the port it had: the gateway still sends
   * there) and announces what it got.
   */
  startService(service: ServiceName, envOverrides: Record<string, string> = {}): ChildProcess {
    const child = this.launch(service, { ...this.envFor(service), ...envOverrides });
    const announced = new Promise<void>((resolve, reject) => {
      this.onAnnouncement.set(service, (line) => {
        const addresses = parseAnnouncement(line);
        if (addresses) {
          this.record(service, addresses.url, this.ports);
          this.record(service, addresses.opsUrl, this.metricsPorts);
          resolve();
        }
      });
      child.once('exit', (code, signal) => reject(new Error(`${service} exited (${signal ?? `code ${code}`}) before it listened`)));
    });
    announced.catch(() => undefined); // observed by waitUntilAnnounced; a process may also just be killed
    this.announced.set(service, announced);
    this.processes.set(service, child);
    this.forwardOutput(service, child);
    return child;
  }

  /** Sends a signal and waits for the process to exit. */
  async kill(service: ServiceName, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.processes.get(service);
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (this.settings.images) {
      // The child is the podman client: a signal it cannot pass on (SIGKILL) must reach the container.
      await this.podman(['kill', '--signal', signal, this.containerName(service)]).catch(() => undefined);
    } else {
      child.kill(signal);
    }
    await exited;
  }

  /** Kills (SIGKILL) and starts a service again, optionally with some variables changed. */
  async restart(service: ServiceName, envOverrides: Record<string, string> = {}): Promise<void> {
    await this.kill(service);
    this.startService(service, envOverrides);
    await this.waitUntilServing(service);
  }

  /** The port an HTTP service (api, stream-relay, gateway or a replica) listens on. */
  portOf(service: ServiceName): number | undefined {
    return this.ports.get(service);
  }

  /** A process's operator port: /metrics, /health/live, /health/ready. */
  metricsPortOf(service: ServiceName): number | undefined {
    return this.metricsPorts.get(service);
  }

  /** Until the service has announced its ports and, for an HTTP service, answers on its port. */
  async waitUntilServing(service: ServiceName): Promise<void> {
    await this.waitUntilAnnounced(service);
    const port = this.ports.get(service);
    if (port !== undefined && service !== 'gateway') {
      await waitFor(`http://127.0.0.1:${port}/api/v1/version`, this.startTimeoutMs(), [200, 401, 404, 405]);
    }
  }

  private async waitUntilAnnounced(service: ServiceName): Promise<void> {
    const announced = this.announced.get(service);
    if (!announced) {
      throw new Error(`${service} was not started`);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${service} did not say where it listens within ${this.startTimeoutMs()} ms`)),
        this.startTimeoutMs(),
      );
    });
    try {
      await Promise.race([announced, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private startTimeoutMs(): number {
    return this.settings.startTimeoutMs ?? 30_000;
  }

  private record(service: ServiceName, url: string | undefined, into: Map<ServiceName, number>): void {
    const port = url ? Number(new URL(url).port) : NaN;
    if (Number.isInteger(port) && port > 0) {
      into.set(service, port);
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((s) => this.kill(s, 'SIGTERM')));
  }

  private envFor(service: ServiceName | 'migrate'): NodeJS.ProcessEnv {
    const s = this.settings;
    const common: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      NATS_URL: s.natsUrl,
      DATABASE_URL: s.databaseUrl,
      DATABASE_SCHEMA: s.databaseSchema,
      REDIS_URL: s.redisUrl,
      NAMESPACE: s.namespace,
      AUTH_PUBLIC_KEY_FILE: s.publicKeyFile,
      ...(s.credentialKeys
        ? {
            CREDENTIALS_KEK_PUBLIC_KEYS: `dev:${s.credentialKeys.publicFile}`,
            CREDENTIALS_KEK_PRIVATE_KEYS: `dev:${s.credentialKeys.privateFile}`,
            CREDENTIALS_FINGERPRINT_KEY_FILE: s.credentialKeys.fingerprintKeyFile,
          }
        : {}),
      ...s.extraEnv,
    };
    // The operator port is always port 0, also on a restart: nothing holds its old number (unlike the
    // HTTP port, which the gateway sends to), and a number freed by a killed process may be taken by
    // then. Tests read it from the announcement (metricsPortOf).
    const metrics: Record<string, string> = { METRICS_PORT: '0' };
    const port = String(this.ports.get(service) ?? 0);
    const urls = (kind: 'api' | 'stream-relay'): string =>
      this.instances(kind)
        .map((name) => `http://127.0.0.1:${this.ports.get(name)}`)
        .join(',');
    switch (kindOf(service)) {
      case 'api':
      case 'stream-relay':
        return { ...common, ...metrics, PORT: port };
      case 'gateway':
        // The gateway reads its own variables (GATEWAY_*, METRICS_HOST, ...) from extraEnv too; it ignores the rest.
        return {
          PATH: common['PATH'],
          ...s.extraEnv,
          ...metrics,
          PORT: port,
          API_UPSTREAM: urls('api'),
          RELAY_UPSTREAM: urls('stream-relay'),
        };
      case 'run-worker':
        return { ...common, ...metrics };
      case 'migrate':
        return common;
    }
  }

  /** Starts a service as a Node process, or as its container when the stack runs images. */
  private launch(service: ServiceName, env: NodeJS.ProcessEnv): ChildProcess {
    const images = this.settings.images;
    if (!images) {
      return spawn(process.execPath, [...(this.settings.nodeArgs ?? []), join(this.settings.distDir, MAINS[kindOf(service)])], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    }
    const names = Object.keys(env).filter((name) => name !== 'PATH');
    return spawn(
      'podman',
      containerRunArgs(this.containerName(service), `${images.repository}/${kindOf(service)}:${images.tag}`, names, env),
      // Values reach the container through podman's environment (`--env NAME`), never its arguments.
      { env: { ...env, ...images.podmanEnv, PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
  }

  containerName(service: ServiceName): string {
    return `${this.settings.namespace}-${service}`;
  }

  private podman(args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn('podman', args, { env: { ...process.env, ...this.settings.images?.podmanEnv }, stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`podman ${args[0]} exited with ${code}`))));
    });
  }

  private async runToCompletion(service: 'migrate'): Promise<void> {
    const child = this.launch(service, this.envFor(service));
    this.forwardOutput(service, child);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) {
      throw new Error(`${service} exited with code ${code}`);
    }
  }

  private forwardOutput(service: string, child: ChildProcess): void {
    const emit = this.settings.onOutput ?? ((name: string, line: string) => process.stdout.write(`[${name}] ${line}\n`));
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        lines.forEach((line) => {
          this.onAnnouncement.get(service)?.(line);
          emit(service, line);
        });
      });
    }
  }
}

function kindOf(service: ServiceName | 'migrate'): Kind {
  const kind = service.replace(/-\d+$/, '');
  if (!(kind in MAINS)) {
    throw new Error(`unknown service ${service}`);
  }
  return kind as Kind;
}
