import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, copyFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's busybox-static: one 2 MB static binary is a whole image. */
export const BUSYBOX = '/bin/busybox';

function run(command: string, args: readonly string[], input?: Buffer): void {
  const result = spawnSync(command, args, { input, encoding: 'utf8', timeout: 60_000 });
  if (result.error || result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr}`);
  }
}

/** Builds `name` (e.g. localhost/wrs-test/pull-1a2b:1) into Podman's store: busybox as /bin/sh and friends. */
export function buildBusyboxImage(name: string): void {
  const root = mkdtempSync(join(tmpdir(), 'wrs-busybox-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(BUSYBOX, join(root, 'bin', 'busybox'));
    for (const applet of ['sh', 'echo', 'sleep', 'true', 'cat']) {
      symlinkSync('busybox', join(root, 'bin', applet));
    }
    const tar = spawnSync('tar', ['-C', root, '-c', '.'], { maxBuffer: 64 * 1024 * 1024 });
    if (tar.status !== 0) {
      throw new Error(`tar failed: ${tar.stderr.toString()}`);
    }
    run('podman', ['import', '--quiet', '--change', 'CMD ["/bin/sh"]', '-', name], tar.stdout);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Copies a local image from Podman's store to `<registry>/<repoTag>` over plain HTTP. */
export function pushToRegistry(local: string, registry: string, repoTag: string): void {
  run('skopeo', ['copy', '--quiet', '--dest-tls-verify=false', `containers-storage:${local}`, `docker://${registry}/${repoTag}`]);
}

/** Removes an image from Podman's store; one that is not there is fine. */
export function removeLocalImage(name: string): void {
  spawnSync('podman', ['rmi', '--force', name], { timeout: 60_000 });
}
