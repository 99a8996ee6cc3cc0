import type { CreateRunRequest } from '@wrs/client';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, OWNER_LABEL, engineContainers } from '@wrs/testing';
import type { FailpointFault } from './failpoint-fault';
import type { ScheduledFault } from './nemesis';
import { Random } from './random';

/**
 * The crash sites around submit and cancel (libs/config Failpoint) the worker must hit: before the
 * provider's submit (the dispatch recorded, nothing started), between the container's create and its
 * start (made, not started), after the submit (started, not yet observed), and after the provider's
 * cancel (stopped, the cancel not yet recorded).
 */
export const WORKER_FAILPOINTS = [
  'worker.before-submit',
  'worker.before-start',
  'worker.after-submit',
  'worker.after-provider-cancel',
] as const;

const WORKERS = ['run-worker', 'run-worker-2'] as const;

/** The worker faults of the `containers` profile: each failpoint and a plain kill -9, round after round. */
export function containerSchedule(seed: number, seconds: number): ScheduledFault[] {
  const random = new Random(seed ^ 0xc047);
  const out: ScheduledFault[] = [];
  let at = 2;
  for (;;) {
    const round = random.shuffle([
      ...WORKER_FAILPOINTS.map((name): FailpointFault => {
        const target = random.pick(WORKERS);
        return {
          kind: 'failpoint',
          target,
          sibling: target === 'run-worker' ? 'run-worker-2' : 'run-worker',
          name,
          downMs: random.int(200, 1500),
        };
      }),
      { kind: 'kill-service' as const, target: random.pick(WORKERS), downMs: random.int(200, 1500) },
    ]);
    const gap = Math.max(2, (seconds - 4) / round.length);
    for (const fault of round) {
      if (at >= seconds - 2 && out.length >= round.length) {
        return out;
      }
      out.push({ at: Math.round(at * 10) / 10, fault });
      at += gap;
    }
  }
}

/** A real container that sleeps a second or a few, so that cancels land before, during and after its start. */
export function containerRun(r: Random): CreateRunRequest {
  const seconds = r.int(1, 4);
  return {
    workload: { image: CONTAINER_IMAGE, command: ['/bin/sh', '-c', `echo start; sleep ${seconds}; echo done`] },
    provider: 'container',
    region: 'local',
  };
}

/** Four runs in ten are canceled, at any moment of their first 2.5 s (queued, starting or running). */
export function containerCancelAfter(r: Random): number | undefined {
  return r.chance(0.4) ? r.int(0, 2500) : undefined;
}

/** What the stack needs to run the container provider on the local engine, with a brisk stray cleanup. */
export function containerStackEnv(): Record<string, string> {
  return {
    PROVIDERS_JSON: JSON.stringify([{ provider: 'container', regions: ['local'], priority: 0 }]),
    CONTAINER_ENGINE_SOCKET: CONTAINER_SOCKET,
    WORKLOAD_CLEANUP_INTERVAL_MS: '1000',
  };
}

/** The containers of this installation still on the engine (stopped ones included). */
export function containersOf(namespace: string): ReturnType<typeof engineContainers> {
  return engineContainers([`${OWNER_LABEL}=${namespace}`]);
}
