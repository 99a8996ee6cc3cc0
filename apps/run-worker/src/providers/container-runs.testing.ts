import { randomUUID } from 'node:crypto';
import { toRunView, type RunView } from '@wrs/domain';
import { patience } from '@wrs/testing';
import type { RunProvider } from './provider';

/** A queued run of `command` in `image` for the container provider's tests. */
export function containerRunOf(image: string, command: string, resources?: RunView['workload']['resources']): RunView {
  const at = new Date().toISOString();
  return toRunView(
    {
      runId: randomUUID(),
      workspaceId: 'ws',
      state: 'queued',
      workload: { image, command: ['/bin/sh', '-c', command], ...(resources ? { resources } : {}) },
      requested: { provider: 'container', region: 'local' },
      placement: null,
      idempotencyKey: 'k',
      createdAt: at,
      dispatchedAt: null,
      startedAt: null,
      finishedAt: null,
      exitCode: null,
      failure: null,
      cancellation: null,
      logLines: 0,
    },
    1,
  );
}

/** The run's exit code once its provider says it exited; throws if it has not within 20 s (times patience). */
export async function exitCodeOf(provider: RunProvider, run: RunView): Promise<number> {
  const until = Date.now() + patience(20_000);
  for (;;) {
    const seen = await provider.observe(run);
    if (seen.phase === 'exited') {
      return seen.exitCode;
    }
    if (Date.now() > until) {
      throw new Error(`the container did not exit: ${JSON.stringify(seen)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
