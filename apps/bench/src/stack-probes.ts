import { listeningPid } from './listening-pid';

/**
 * The processes listening on the stack's NATS, Postgres and Redis ports, so CPU per run counts these
 * servers (and their backends), not other servers of the same name on the box (test containers).
 */
export function serversOf(env: { natsUrl: string; databaseUrl: string; redisUrl: string }): Map<string, number> {
  const ports: [string, string, number][] = [
    ['nats-server', env.natsUrl, 4222],
    ['postgres', env.databaseUrl, 5432],
    ['redis-server', env.redisUrl, 6379],
  ];
  const found = new Map<string, number>();
  for (const [name, url, defaultPort] of ports) {
    const pid = listeningPid(Number(new URL(url).port || defaultPort));
    if (pid === undefined) {
      console.error(`${name}: no process of this machine listens on ${url}; CPU per run counts every ${name} process instead`);
    } else {
      found.set(name, pid);
    }
  }
  return found;
}

/** Polls until the probe says yes, or fails after the timeout. */
export async function waitUntil(probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}
