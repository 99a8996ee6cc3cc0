import type Docker from 'dockerode';
import { messageOf } from './engine';

type Inspect = () => Promise<Docker.ContainerInspectInfo | undefined>;

/** How long a container whose name another create holds may take to show up in inspect. */
const APPEAR_MS = 10_000;

/** How long a container another submit made may stay unstarted before this one starts it: twice that submit's start call bound. */
export const ABANDONED_AFTER_MS = 20_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits for a container that another create is making: Podman holds the name while it makes the
 * storage, and inspect answers 404 until then. An inspect refused meanwhile is tried again too: Podman
 * answers 500 ("read /proc/N/cgroup") for a container that exits while it is inspected. Gives up with a
 * plain error (an unclear outcome, never a refusal: the name shows the run's container exists).
 */
export async function containerAppears(inspect: Inspect): Promise<Docker.ContainerInspectInfo> {
  const until = Date.now() + APPEAR_MS;
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    let refused: unknown;
    const found = await inspect().catch((error: unknown) => {
      refused = error;
      return undefined;
    });
    if (found !== undefined) {
      return found;
    }
    if (Date.now() > until) {
      const last = refused === undefined ? 'inspect still answers 404' : messageOf(refused);
      throw new Error(`another create holds the container's name, and no container appeared within ${APPEAR_MS} ms (${last})`);
    }
    await pause(wait);
  }
}

/**
 * Whether a container this submit did not make should be started here: only if it is still unstarted
 * `abandonedAfterMs` after it was first seen (its maker died between create and start). Otherwise its
 * maker starts it, and starting it here too could run a workload that already exited a second time.
 */
export async function abandonedUnstarted(inspect: Inspect, found: Docker.ContainerInspectInfo, abandonedAfterMs: number): Promise<boolean> {
  const until = Date.now() + abandonedAfterMs;
  let seen: Docker.ContainerInspectInfo | undefined = found;
  while (seen?.State.Status === 'created') {
    if (Date.now() >= until) {
      return true;
    }
    await pause(Math.min(250, abandonedAfterMs));
    const last: Docker.ContainerInspectInfo = seen;
    seen = await inspect().catch(() => last);
  }
  return false;
}
