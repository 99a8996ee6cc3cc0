import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitUntilServing, type DevDependencyKind } from '@wrs/devstack';

/** Where Debian's Postgres 15 keeps its server binaries (initdb, postgres). */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

/**
 * The private Postgres runs with the settings of this machine's shared server (`SHOW ...` on :5432:
 * Debian's postgresql.conf), so its CPU per run compares with a shared-server run: every commit flushed
 * (fsync, synchronous_commit), the same buffers, connections and WAL sizes. One difference: autovacuum
 * is on, as in every deployment (the shared test server turns it off). Without it `runs` is never
 * analysed, so the planner takes its few unfinished runs for tens of thousands and counts them with
 * parallel workers (73 ms a call), and every dead index entry stays. `pg_stat_statements` is preloaded
 * (planning counted too), so the bench can say which statements the CPU per run goes to (see
 * StatementStats); its own cost is a counter update per statement.
 */
export const POSTGRES_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: '127.0.0.1',
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  shared_buffers: '128MB',
  max_connections: '100',
  max_wal_size: '1GB',
  min_wal_size: '80MB',
  autovacuum: 'on',
  dynamic_shared_memory_type: 'posix',
  TimeZone: 'Etc/UTC',
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track_planning': 'on',
};

/** The name CpuUsage and the results give each server (its process's command name). */
export type ServerName = 'nats-server' | 'postgres' | 'redis-server';

/** One server process: how it is started, where it answers, and how it is asked to stop. */
export interface ServerCommand {
  readonly name: ServerName;
  readonly kind: DevDependencyKind;
  readonly command: string;
  readonly args: readonly string[];
  readonly port: number;
  readonly url: string;
  /** Postgres: SIGINT is its fast shutdown (SIGTERM would wait for the clients to leave). */
  readonly stopSignal: NodeJS.Signals;
  /** Run as this user (Postgres refuses root). */
  readonly runAs?: { uid: number; gid: number };
}

export interface ServerPorts {
  readonly nats: number;
  readonly postgres: number;
  readonly redis: number;
}

/** initdb's arguments for a trusted `postgres` superuser in `dataDir` (locale and encoding as the shared server's). */
export function initdbArgs(dataDir: string): string[] {
  return ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'];
}

/**
 * The three servers of a private run, on loopback only, their data under `dir` (JetStream's store,
 * Redis's directory, Postgres's cluster, which initdb made in `<dir>/postgres`): NATS with JetStream,
 * Redis as a cache that writes nothing to disk (as the shared one and docker/compose.yaml run it), and
 * Postgres with POSTGRES_SETTINGS, its socket in its data directory.
 */
export function serverCommands(
  ports: ServerPorts,
  dir: string,
  postgresBin = POSTGRES_BIN,
  runAs?: { uid: number; gid: number },
): ServerCommand[] {
  const pgData = join(dir, 'postgres');
  return [
    {
      name: 'nats-server',
      kind: 'nats',
      command: 'nats-server',
      args: ['-a', '127.0.0.1', '-p', String(ports.nats), '-js', '-sd', join(dir, 'nats')],
      port: ports.nats,
      url: `nats://127.0.0.1:${ports.nats}`,
      stopSignal: 'SIGTERM',
    },
    {
      name: 'postgres',
      kind: 'postgres',
      command: join(postgresBin, 'postgres'),
      args: [
        '-D',
        pgData,
        '-p',
        String(ports.postgres),
        '-k',
        pgData,
        ...Object.entries(POSTGRES_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      ],
      port: ports.postgres,
      url: `postgres://postgres@127.0.0.1:${ports.postgres}/postgres`,
      stopSignal: 'SIGINT',
      ...(runAs ? { runAs } : {}),
    },
    {
      name: 'redis-server',
      kind: 'redis',
      command: 'redis-server',
      args: ['--bind', '127.0.0.1', '--port', String(ports.redis), '--save', '', '--appendonly', 'no', '--dir', join(dir, 'redis')],
      port: ports.redis,
      url: `redis://127.0.0.1:${ports.redis}`,
      stopSignal: 'SIGTERM',
    },
  ];
}

/** A user's uid and gid from /etc/passwd's text; undefined when it has no such user. */
export function userIds(passwd: string, user: string): { uid: number; gid: number } | undefined {
  const fields = passwd
    .split('\n')
    .map((line) => line.split(':'))
    .find((f) => f[0] === user);
  return fields && fields.length >= 4 ? { uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
}

/** The results' header line on the servers: which ones, and (private) their pids and ports. */
export function serversLine(
  urls: { natsUrl: string; databaseUrl: string; redisUrl: string },
  started?: readonly { name: string; pid: number; port: number }[],
): string {
  if (started) {
    return `servers private to this run (BENCH_PRIVATE_SERVERS=1, removed after it): ${started.map((s) => `${s.name} pid ${s.pid} on 127.0.0.1:${s.port}`).join(', ')}`;
  }
  const shown = [urls.natsUrl, urls.databaseUrl, urls.redisUrl].map((u) => {
    const parsed = new URL(u);
    return `${parsed.protocol.replace(':', '')} ${parsed.host}`;
  });
  return `shared servers (${shown.join(', ')}), whose other clients' CPU counts too`;
}

/** Running private servers; `stop` ends them and removes their data, synchronously so it can run on exit. */
export interface PrivateServers {
  readonly natsUrl: string;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly started: readonly { name: ServerName; pid: number; port: number }[];
  stop(): void;
}

/**
 * Starts NATS (JetStream), Postgres 15 and Redis from this machine's binaries on free loopback ports,
 * each in a process group of its own (a Ctrl-C at the terminal reaches the bench, which stops them),
 * their data in a temporary directory; resolves once each answers a request. Stops them again (and
 * removes the directory) when the bench exits, however it exits short of SIGKILL.
 */
export async function startPrivateServers(): Promise<PrivateServers> {
  for (const binary of [join(POSTGRES_BIN, 'initdb'), join(POSTGRES_BIN, 'postgres')]) {
    if (!existsSync(binary)) {
      throw new Error(`BENCH_PRIVATE_SERVERS: no ${binary} (Postgres 15's server) on this machine`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'wrs-bench-servers-'));
  chmodSync(dir, 0o755); // Postgres's user must reach its data directory in it
  // Postgres refuses to run as root: as its own user then.
  const runAs = process.getuid?.() === 0 ? userIds(readFileSync('/etc/passwd', 'utf8'), 'postgres') : undefined;
  if (process.getuid?.() === 0 && !runAs) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error('BENCH_PRIVATE_SERVERS: running as root, and there is no postgres user to run Postgres as');
  }
  const commands = serverCommands(
    { nats: await freePort(), postgres: await freePort(), redis: await freePort() },
    dir,
    POSTGRES_BIN,
    runAs,
  );
  const children: { command: ServerCommand; child: ChildProcess }[] = [];
  let stopped = false;
  const stop = (): void => {
    if (stopped) {
      return;
    }
    stopped = true;
    process.off('exit', stop);
    for (const { command, child } of children) {
      signal(child.pid, command.stopSignal);
    }
    for (const { child } of children) {
      waitGone(child.pid, 30_000);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stop);
  try {
    for (const sub of ['nats', 'redis', 'postgres']) {
      mkdirSync(join(dir, sub), { mode: 0o700 });
    }
    if (runAs) {
      chownSync(join(dir, 'postgres'), runAs.uid, runAs.gid);
    }
    const initdb = spawnSync(join(POSTGRES_BIN, 'initdb'), initdbArgs(join(dir, 'postgres')), {
      ...(runAs ?? {}),
      encoding: 'utf8',
      cwd: dir,
    });
    if (initdb.status !== 0) {
      throw new Error(`initdb failed: ${initdb.stderr || initdb.error?.message}`);
    }
    for (const command of commands) {
      const log = openSync(join(dir, `${command.name}.log`), 'a');
      const child = spawn(command.command, [...command.args], {
        ...(command.runAs ?? {}),
        cwd: dir,
        detached: true,
        stdio: ['ignore', log, log],
      });
      children.push({ command, child });
      child.once('exit', (code, sig) => {
        if (!stopped) {
          console.error(
            `private ${command.name} exited (${sig ?? code}) while the bench ran; its log was ${join(dir, `${command.name}.log`)}`,
          );
        }
      });
    }
    await Promise.all(commands.map((c) => waitUntilServing(c.kind, c.url, 60_000)));
  } catch (error) {
    for (const { command } of children) {
      try {
        console.error(`--- ${command.name}.log\n${readFileSync(join(dir, `${command.name}.log`), 'utf8').slice(-2000)}`);
      } catch {
        // no log
      }
    }
    stop();
    throw error;
  }
  const urlOf = (name: ServerName): string => commands.find((c) => c.name === name)!.url;
  return {
    natsUrl: urlOf('nats-server'),
    databaseUrl: urlOf('postgres'),
    redisUrl: urlOf('redis-server'),
    started: children.map(({ command, child }) => ({ name: command.name, pid: child.pid!, port: command.port })),
    stop,
  };
}

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  try {
    if (pid !== undefined) {
      process.kill(pid, sig);
    }
  } catch {
    // already gone
  }
}

/** Until the process is gone (or a zombie: our own child, reaped by the event loop later); SIGKILL after `timeoutMs`. */
function waitGone(pid: number | undefined, timeoutMs: number): void {
  if (pid === undefined) {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  while (alive(pid)) {
    if (Date.now() > deadline) {
      signal(pid, 'SIGKILL');
      Atomics.wait(sleeper, 0, 0, 200);
      return;
    }
    Atomics.wait(sleeper, 0, 0, 50);
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
