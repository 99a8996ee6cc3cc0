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

/** Every process whose command name is one of `names` (the servers the stack talks to). */
function pidsNamed(names: readonly string[]): Map<string, number[]> {
  const found = new Map<string, number[]>(names.map((n) => [n, []]));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      found.get(comm)?.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * CPU used by each part of the system over a measured window: the stack's own processes by name,
 * the servers (NATS, Postgres with every backend, Redis) and the load generator itself. Linux only.
 */
export class CpuUsage {
  private readonly start = new Map<string, number>();

  constructor(private readonly processes: ReadonlyMap<string, number>) {
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
    for (const [name, pids] of pidsNamed(['nats-server', 'postgres', 'redis-server'])) {
      out.set(name, pids.reduce((sum, pid) => sum + cpuMsOf(pid, true), 0));
    }
    out.set('load generator', cpuMsOf(process.pid));
    return out;
  }
}
