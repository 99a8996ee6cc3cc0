import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DETACHED = join(__dirname, '..', '..', '..', 'scripts', 'podman', 'detached.sh');

/**
 * scripts/podman/setup.sh starts the Podman service and the healthcheck pump with `detached`. Run as
 * `flock /tmp/x.lock bash setup.sh`, the service it started kept flock's fd 3, so it held the lock for
 * as long as it ran and the next `flock /tmp/x.lock ...` waited forever (another session did).
 */
describe("scripts/podman/detached.sh: a daemon setup.sh starts holds none of its caller's files", () => {
  it("under the caller's flock, the daemon keeps only stdin, stdout and stderr: the lock is free once the caller is done", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wrs-detached-'));
    const lock = join(dir, 'x.lock');
    // As setup.sh does: fd 9 its own, the caller's lock on fd 3 (flock's), a daemon in a background subshell.
    const pid = Number(
      execFileSync(
        'flock',
        [lock, 'bash', '-c', `exec 9>"${dir}/own.lock"; . "${DETACHED}"; (detached sleep 60) >/dev/null 2>&1 </dev/null & echo $!`],
        { encoding: 'utf8' },
      ).trim(),
    );
    try {
      // `echo $!` runs as the subshell starts: wait until it has closed what it had and become the daemon.
      await commandBecomes(pid, 'sleep');
      expect(await settledFiles(pid)).toEqual({
        fds: ['0', '1', '2'],
        files: ['/dev/null', '/dev/null', '/dev/null'],
      });
      expect(spawnSync('flock', ['-n', lock, 'true']).status).toBe(0);
      // Its own session: it outlives the caller's process group.
      expect(sessionOf(pid)).toBe(pid);
    } finally {
      process.kill(pid, 'SIGTERM');
    }
  });
});

/** The session id of a process (the 6th field of /proc/<pid>/stat; the name in parentheses may hold spaces). */
function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

/**
 * The process's open files once they stop changing: right after the exec the loader opens and closes
 * libraries (a transient fd 3, seen by CI on a busy machine), so two equal readings 50 ms apart while the
 * process sleeps are taken. An inherited descriptor stays in every reading.
 */
async function settledFiles(pid: number): Promise<{ fds: string[]; files: string[] }> {
  const read = (): { fds: string[]; files: string[] } | undefined => {
    try {
      const fds = readdirSync(`/proc/${pid}/fd`).sort();
      return { fds, files: fds.map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`)) };
    } catch {
      return undefined; // a descriptor closed between the listing and its readlink
    }
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const first = stateOf(pid) === 'S' ? read() : undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = read();
    if (first && second && JSON.stringify(first) === JSON.stringify(second)) {
      return second;
    }
    if (Date.now() > deadline) {
      return second ?? { fds: [], files: [] };
    }
  }
}

/** The state letter of a process (the 3rd field of /proc/<pid>/stat). */
function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
}

async function commandBecomes(pid: number, name: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== name) {
    if (Date.now() > deadline) {
      throw new Error(`process ${pid} did not become ${name}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
