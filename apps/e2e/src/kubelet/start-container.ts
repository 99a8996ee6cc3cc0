import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '@wrs/devstack';
import { containerEnv, type ObjectData } from './container-env';
import { imageStart } from './image-command';
import type { Workload } from './manifest-types';
import { ROOT } from './render';
import { materializeMounts, rewritePaths } from './volumes';

/** What the test changes in a pod's environment, each for a reason the kubelet does not have. */
export interface Substitutions {
  /** In-cluster addresses (e.g. `nats://nats:4222`) and the local servers that stand in for them. */
  readonly addresses: Record<string, string>;
  /** Variables the manifests leave to their defaults, set so each test has its own streams and schema. */
  readonly isolation: Record<string, string>;
  /** Where the container's mounts are written (the mount root is rewritten under it). */
  readonly root: string;
}

export interface StartedContainer {
  readonly child: ChildProcess;
  readonly env: Record<string, string>;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves when the process exits 0 (a Job), rejects with its output when it exits otherwise. */
  readonly exited: Promise<void>;
  /** Resolves when the readiness probe answers 2xx; rejects if the process exits first. */
  ready(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a workload's first container as the kubelet would from the rendered objects: the image's CMD
 * (or the manifest's command and args) run from the built dist/ (the image's /app), the image's ENV and
 * the manifest's env, and the mounted files. There is no network namespace here: each containerPort is
 * mapped to a free local port, and an env value naming that port is mapped with it.
 */
export async function startContainer(workload: Workload, data: ObjectData, subs: Substitutions): Promise<StartedContainer> {
  const container = workload.pod.containers[0]!;
  const image = imageStart(container.image);
  const mounts = materializeMounts(workload.pod, container, data, subs.root);
  const ports = new Map<number, number>();
  for (const port of container.ports ?? []) {
    ports.set(port.containerPort, await freePort());
  }
  const env: Record<string, string> = {};
  for (const [name, raw] of Object.entries(containerEnv(container, image.env, data))) {
    let value = rewritePaths(raw, mounts);
    for (const [inCluster, local] of Object.entries(subs.addresses)) {
      value = value.split(inCluster).join(local);
    }
    env[name] = /^\d+$/.test(value) && ports.has(Number(value)) ? String(ports.get(Number(value))) : value;
  }
  Object.assign(env, subs.isolation);
  const argv = [...(container.command ?? image.cmd), ...(container.args ?? [])];
  const executable = argv[0] === 'node' ? process.execPath : argv[0]!;
  const child = spawn(executable, argv.slice(1), {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve, reject) =>
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${workload.name} exited (${code ?? signal}):\n${output}`)),
    ),
  );
  exited.catch(() => undefined);
  const probe = container.readinessProbe?.httpGet;
  return {
    child,
    env,
    output: () => output,
    exited,
    ready: async (timeoutMs) => {
      if (!probe) {
        throw new Error(`${workload.name} has no readiness probe`);
      }
      const named = container.ports?.find((p) => p.name === probe.port)?.containerPort;
      const port = ports.get(typeof probe.port === 'number' ? probe.port : (named ?? NaN));
      if (port === undefined) {
        throw new Error(`${workload.name}: the readiness probe's port ${probe.port} is not a container port`);
      }
      // Polling ends with the process too, so nothing outlives a start that failed.
      let gone = false;
      const ended = exited
        .then(() => Promise.reject(new Error(`${workload.name} exited 0 before it was ready`)))
        .finally(() => (gone = true));
      await Promise.race([ended, pollReady(`http://127.0.0.1:${port}${probe.path}`, timeoutMs, () => gone)]);
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await gone;
      }
    },
  };
}

async function pollReady(url: string, timeoutMs: number, gone: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline && !gone()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) {
        return;
      }
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms (last: ${last})`);
}
