import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@wrs/testing';

export interface EngineSocket {
  readonly path: string;
  /** The socket's group: what the worker takes as its own (WRS_ENGINE_GID). */
  readonly gid: number;
  stop(): Promise<void>;
}

function ping(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/**
 * A rootful Podman API socket of this test's own, made group read-write (mode 0660, group root) as
 * systemd's podman.socket makes it: the shared /run/podman/podman.sock is 0600 and other tests use it.
 * Same image store, so the workload image built by setup.sh is there.
 */
export async function startEngineSocket(env: NodeJS.ProcessEnv): Promise<EngineSocket> {
  const dir = mkdtempSync(join(tmpdir(), 'wrs-compose-engine-'));
  const path = join(dir, 'engine.sock');
  const service: ChildProcess = spawn('podman', ['system', 'service', '--time=0', `unix://${path}`], { env, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => service.once('exit', () => resolve()));
  await eventually(async () => ((await ping(path)) ? true : undefined), 30_000, `podman system service on ${path}`);
  chmodSync(path, 0o660);
  return {
    path,
    gid: 0,
    stop: async () => {
      service.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
