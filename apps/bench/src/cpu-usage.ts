import { readdirSync, readFileSync } from 'node:fs';

/** Kernel clock ticks per second (`getconf CLK_TCK`: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) a process has used, in ms; 0 once it is gone. With `reapedChildren`, also
 * its exited children's (cutime + cstime): a Postgres backend that ends between two samples moves its
 * CPU to the postmaster's count, so a sum over every `postgres` process never goes back.
 */
function cpuMsOf(pid: number, reapedChildren = false): number {
  try {
    // Fields after the parenthesised command name: utime, stime, cutime and cstime are the 12th to 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (reapedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The servers the stack talks to, by command name. */
export const SERVERS = ['nats-server', 'postgres', 'redis-server'] as const;

/** Every process's command name and parent. */
function processTable(): Map<number, { comm: string; parent: number }> {
  const table = new Map<number, { comm: string; parent: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      table.set(Number(entry), { comm, parent: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** A process and all its live descendants. */
function treeOf(root: number, table: ReadonlyMap<number, { parent: number }>): number[] {
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, { parent }] of table) {
      if (parent === tree[i]) {
        tree.push(pid);
      }
    }
  }
  return tree;
}

/**
 * CPU used by each part of the system over a measured window: the stack's own processes by name,
 * the servers (NATS, Postgres with every backend, Redis) and the load generator itself. A server
 * given in `servers` (its listening process, see listeningPid) counts that process and its
 * descendants; one not given, every process of its command name on the box. Linux only.
 */
export class CpuUsage {
  private readonly start = new Map<string, number>();

  constructor(
    private readonly processes: ReadonlyMap<string, number>,
    private readonly servers: ReadonlyMap<string, number> = new Map(),
  ) {
    for (const [name, ms] of this.sample()) {
      this.start.set(name, ms);
    }
  }

  /** CPU ms per part since construction. */
  since(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [name, ms] of this.sample()) {
      out.set(name, ms - (this.start.get(name) ?? 0));
    }
    return out;
  }

  private sample(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [name, pid] of this.processes) {
      out.set(name, cpuMsOf(pid));
    }
    const table = processTable();
    for (const name of [...new Set([...SERVERS, ...this.servers.keys()])]) {
      const root = this.servers.get(name);
      const pids = root !== undefined ? treeOf(root, table) : [...table].filter(([, p]) => p.comm === name).map(([pid]) => pid);
      out.set(
        name,
        pids.reduce((sum, pid) => sum + cpuMsOf(pid, true), 0),
      );
    }
    out.set('load generator', cpuMsOf(process.pid));
    return out;
  }
}
