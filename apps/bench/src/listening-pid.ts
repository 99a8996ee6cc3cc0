import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The process that listens on a TCP port in this network namespace (`/proc/net/tcp{,6}` gives the
 * listening socket's inode, a `/proc/<pid>/fd` link names its holder); undefined when none here (a
 * server elsewhere, or one the kernel will not show). Of several holders (forked children that kept
 * the socket), the one whose parent is not a holder. Linux only; root sees every process's fds.
 */
export function listeningPid(port: number): number | undefined {
  const sockets = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && parseInt(fields[1]?.split(':')[1] ?? '', 16) === port && fields[9]) {
        sockets.add(`socket:[${fields[9]}]`);
      }
    }
  }
  if (sockets.size === 0) {
    return undefined;
  }
  const holders = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (readdirSync(`/proc/${entry}/fd`).some((fd) => sockets.has(readLink(`/proc/${entry}/fd/${fd}`)))) {
        holders.set(Number(entry), parentOf(Number(entry)));
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return [...holders].find(([, parent]) => !holders.has(parent))?.[0];
}

/** The parent's process id (the field after the state, past the parenthesised command name). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
