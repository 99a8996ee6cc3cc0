import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort } from '@wrs/devstack';

export const NATS_SERVER = '/usr/sbin/nats-server';

export interface NatsCluster {
  /** One member's URL: clients learn the others from it. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A JetStream cluster of `size` local nats-server processes, for manifests that ask for streams with
 * that many replicas (the prod overlay: 3), which a single server refuses. Ready once JetStream answers.
 */
export async function startNatsCluster(size: number, timeoutMs: number): Promise<NatsCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'wrs-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`).join(', ');
  const servers: ChildProcess[] = ports.map((p, i) => {
    const config = join(dir, `n${i}.conf`);
    writeFileSync(
      config,
      [
        `server_name: n${i}`,
        `listen: 127.0.0.1:${p.client}`,
        `jetstream { store_dir: "${join(dir, `n${i}`)}" }`,
        `cluster { name: wrs-test, listen: 127.0.0.1:${p.route}, routes: [${routes}] }`,
      ].join('\n'),
    );
    return spawn(NATS_SERVER, ['-c', config], { stdio: 'ignore' });
  });
  const url = `nats://127.0.0.1:${ports[0]!.client}`;
  const stop = async (): Promise<void> => {
    const running = servers.filter((s) => s.exitCode === null && s.signalCode === null);
    await Promise.all(running.map((s) => new Promise((resolve) => s.once('exit', resolve).kill('SIGKILL'))));
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const nc = await connect({ servers: url, timeout: 1000 });
      try {
        // Answers once the cluster has elected its JetStream meta leader.
        await (await jetstreamManager(nc, { timeout: 1000 })).getAccountInfo();
        return { url, stop };
      } finally {
        await nc.close();
      }
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`the ${size}-node NATS cluster was not ready within ${timeoutMs} ms: ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
