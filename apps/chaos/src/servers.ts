import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's newest Postgres (or CHAOS_PG_BIN). */
const PG_BIN =
  process.env['CHAOS_PG_BIN'] ??
  (existsSync('/usr/lib/postgresql')
    ? join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))[0] ?? '15', 'bin')
    : '/usr/lib/postgresql/15/bin');

export type DependencyName = 'nats' | 'postgres' | 'redis';

/**
 * One server the chaos run owns: started on a free port in a temporary directory, killed with any
 * signal (kill -9 included) and started again on the same port and data directory. The shared servers
 * on 4222/5432/6379 are never touched.
 */
export class OwnServer {
  private child: ChildProcess | undefined;

  constructor(
    readonly name: DependencyName,
    readonly port: number,
    private readonly command: () => { file: string; args: string[] },
    private readonly onOutput: (line: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  async start(): Promise<void> {
    const deadline = Date.now() + 60_000;
    // A killed Postgres leaves backends behind for a moment: its restart is refused until they are gone.
    for (;;) {
      const { file, args } = this.command();
      const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      this.child = child;
      for (const stream of [child.stdout, child.stderr]) {
        stream?.setEncoding('utf8');
        stream?.on('data', (chunk: string) =>
          chunk
            .split('\n')
            .filter(Boolean)
            .forEach((l) => this.onOutput(l)),
        );
      }
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const up = await Promise.race([waitForPort(this.port, 20_000).then(() => true), exited.then(() => false)]);
      if (up) {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`${this.name} did not start on port ${this.port}`);
      }
      await sleep(300);
    }
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    const pid = this.pid;
    if (pid !== undefined) {
      process.kill(pid, signal);
    }
  }

  async stop(): Promise<void> {
    this.signal('SIGCONT');
    await this.kill('SIGTERM');
  }
}

export interface OwnServers {
  readonly nats: OwnServer;
  readonly postgres: OwnServer;
  readonly redis: OwnServer;
  readonly dirs: string[];
  stopAll(): Promise<void>;
}

export async function startOwnServers(
  ports: Record<DependencyName, number>,
  onOutput: (server: string, line: string) => void,
): Promise<OwnServers> {
  const natsDir = mkdtempSync(join(tmpdir(), 'wrs-chaos-nats-'));
  const nats = new OwnServer(
    'nats',
    ports.nats,
    () => ({
      file: '/usr/sbin/nats-server',
      args: ['-a', '127.0.0.1', '-p', String(ports.nats), '-js', '-sd', natsDir],
    }),
    (l) => onOutput('nats', l),
  );

  // Postgres refuses to run as root: its cluster belongs to the postgres user, and the server is
  // exec'd under that user by setpriv (no intermediate process, so a signal reaches the postmaster).
  const pgDir = mkdtempSync(join(tmpdir(), 'wrs-chaos-pg-'));
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  chownSync(pgDir, uid, gid);
  const asPostgres = ['--reuid', String(uid), '--regid', String(gid), '--clear-groups', '--'];
  const init = spawnSync(
    'setpriv',
    [...asPostgres, join(PG_BIN, 'initdb'), '-D', join(pgDir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    {
      encoding: 'utf8',
    },
  );
  if (init.status !== 0) {
    throw new Error(`initdb failed: ${init.stderr}`);
  }
  const postgres = new OwnServer(
    'postgres',
    ports.postgres,
    () => ({
      file: 'setpriv',
      args: [
        ...asPostgres,
        join(PG_BIN, 'postgres'),
        '-D',
        join(pgDir, 'data'),
        '-p',
        String(ports.postgres),
        '-k',
        pgDir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=200',
        '-c',
        'shared_buffers=32MB',
        '-c',
        'fsync=on',
      ],
    }),
    (l) => onOutput('postgres', l),
  );

  const redis = new OwnServer(
    'redis',
    ports.redis,
    () => ({
      file: '/usr/bin/redis-server',
      args: ['--bind', '127.0.0.1', '--port', String(ports.redis), '--save', '', '--appendonly', 'no'],
    }),
    (l) => onOutput('redis', l),
  );

  const servers = [nats, postgres, redis];
  try {
    await Promise.all(servers.map((s) => s.start()));
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    throw error;
  }
  return {
    nats,
    postgres,
    redis,
    dirs: [natsDir, pgDir],
    stopAll: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      for (const dir of [natsDir, pgDir]) {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const socket = tcpConnect({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) {
          reject(new Error(`port ${port} did not open`));
        } else {
          setTimeout(attempt, 100);
        }
      });
    };
    attempt();
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
