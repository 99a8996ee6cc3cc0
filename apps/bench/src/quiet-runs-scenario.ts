import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuUsage } from './cpu-usage';
import type { Figure } from './figure';

export interface QuietRunsSetup {
  readonly apiUrl: string;
  readonly token: string;
  /** How many of the workspace's runs (or of those named) are unfinished, and how many running. */
  readonly counts: (among?: readonly string[]) => Promise<{ unfinished: number; running: number }>;
  /** CPU of the stack's processes and servers from now on. */
  readonly cpu: () => CpuUsage;
}

/** Creates run after run on `connections` connections until `total` are accepted; returns their ids. */
async function createQuiet(setup: QuietRunsSetup, total: number, connections = 16): Promise<string[]> {
  const ids: string[] = [];
  let left = total;
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const res = await fetch(`${setup.apiUrl}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        // An hour-long simulated workload that writes nothing: what a quiet training or serving job looks like.
        body: JSON.stringify({
          workload: { image: 'busybox', env: { SIM_DURATION_MS: '3600000' } },
          provider: 'simulator',
          region: 'auto',
        }),
      });
      if (res.status !== 201) {
        throw new Error(`a quiet run's create answered ${res.status}: ${await res.text()}`);
      }
      ids.push(((await res.json()) as { id: string }).id);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return ids;
}

async function untilCounts(
  setup: QuietRunsSetup,
  done: (c: { unfinished: number; running: number }) => boolean,
  what: string,
  among?: readonly string[],
): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (done(await setup.counts(among))) {
      return;
    }
    await sleep(100);
  }
  throw new Error(`the quiet-runs scenario gave up waiting for ${what}`);
}

/** CPU ms per second of the worker and of every measured part together, over `seconds`. */
async function cpuPerSecond(setup: QuietRunsSetup, seconds: number): Promise<{ worker: number; all: number }> {
  const usage = setup.cpu();
  await sleep(seconds * 1000);
  const spent = usage.since();
  const all = [...spent].filter(([name]) => name !== 'load generator').reduce((sum, [, ms]) => sum + ms, 0);
  return { worker: (spent.get('run-worker') ?? 0) / seconds, all: all / seconds };
}

/**
 * What runs that go on quietly cost while they run: the reconciler looks at each on a schedule that backs
 * off while nothing changes (reconcile/observe-schedule.ts), so the worker's CPU a second should grow
 * little with their number. Measured before them (once no run of an earlier scenario is queued or
 * starting), then with `total` hour-long simulator runs running, once the schedule has reached its
 * longest gap; the runs are canceled after.
 */
export async function quietRunsCost(setup: QuietRunsSetup, total: number, seconds: number): Promise<Figure[]> {
  // Earlier scenarios may leave runs going on (the fan-out's ten-minute runs): the idle figure is taken once
  // every unfinished run is running, and counts them; the quiet runs are counted on top of them.
  await untilCounts(setup, (c) => c.unfinished === c.running, 'the earlier scenarios’ runs to end or run');
  const before = (await setup.counts()).running;
  const idle = await cpuPerSecond(setup, seconds);
  const ids = await createQuiet(setup, total);
  try {
    // Counted among the quiet runs themselves: an earlier scenario's ten-minute run may end meanwhile.
    await untilCounts(setup, (c) => c.running >= total, `${total} quiet runs to be running`, ids);
    await sleep(QUIET_SETTLE_MS);
    const quiet = await cpuPerSecond(setup, seconds);
    const per1000 = (ms: number): number => Math.round(((ms * 1000) / total) * 100) / 100;
    return [
      {
        scenario: 'quiet runs',
        metric: `run-worker CPU per second with ${total} quiet runs running (hour-long, no output)`,
        value: Math.round(quiet.worker * 10) / 10,
        unit: 'ms/s',
        baseline: { what: `the worker before them (${before} other runs running)`, value: Math.round(idle.worker * 10) / 10 },
      },
      {
        scenario: 'quiet runs',
        metric: 'run-worker CPU per second per 1,000 quiet runs, over the worker before them',
        value: per1000(quiet.worker - idle.worker),
        unit: 'ms/s',
      },
      {
        scenario: 'quiet runs',
        metric: 'every process but the load generator, CPU per second per 1,000 quiet runs, over before them',
        value: per1000(quiet.all - idle.all),
        unit: 'ms/s',
      },
    ];
  } finally {
    await cancelAll(setup, ids);
  }
}

/** Cancels the quiet runs and waits until none of them is unfinished. */
async function cancelAll(setup: QuietRunsSetup, ids: string[]): Promise<void> {
  const queue = [...ids];
  const worker = async (): Promise<void> => {
    for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
      await fetch(`${setup.apiUrl}/runs/${id}:cancel`, { method: 'POST', headers: { authorization: `Bearer ${setup.token}` } });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await untilCounts(setup, (c) => c.unfinished === 0, 'the quiet runs to be canceled', ids);
}

/** The longest gap between two looks is 5 s by default, reached 6.2 s after a run starts. */
const QUIET_SETTLE_MS = 8_000;
