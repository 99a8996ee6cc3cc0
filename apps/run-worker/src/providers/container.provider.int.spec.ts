import { randomUUID } from 'node:crypto';
import { toRunView, type RunView } from '@wrs/domain';
import { ContainerProvider } from './container.provider';
import { EngineClient } from './engine-client';

const SOCKET = process.env['WRS_TEST_CONTAINER_SOCKET'] ?? '/run/podman/podman.sock';
const IMAGE = process.env['WRS_TEST_CONTAINER_IMAGE'] ?? 'localhost/wrs-test/base:bookworm';

function runOf(command: string): RunView {
  const at = new Date().toISOString();
  return toRunView(
    {
      runId: randomUUID(), workspaceId: 'ws', state: 'queued', workload: { image: IMAGE, command: ['/bin/sh', '-c', command] },
      requested: { provider: 'container', region: 'local' }, placement: null, idempotencyKey: 'k', createdAt: at,
      dispatchedAt: null, startedAt: null, finishedAt: null, exitCode: null, failure: null, cancellation: null, logLines: 0,
    },
    1,
  );
}

describe('ContainerProvider against a real engine', () => {
  const engine = new EngineClient(SOCKET);
  const provider = new ContainerProvider(engine);
  let ready = false;
  const placement = { provider: 'container', region: 'local', reason: 'test', candidates: [] };

  beforeAll(async () => {
    ready = await engine.call('GET', `/images/${encodeURIComponent(IMAGE)}/json`).then((r) => r.status === 200, () => false);
    if (!ready) {
      console.warn(`SKIPPED: no container engine at ${SOCKET} with image ${IMAGE}`);
    }
  });

  it('submitting again for the same run re-attaches: a finished workload never runs twice', async () => {
    if (!ready) {
      return;
    }
    const run = runOf('echo once');
    await provider.submit(run, placement);
    for (let i = 0; i < 50 && (await provider.observe(run)).phase !== 'exited'; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    // A stale view of the run (still queued) leads the worker to dispatch it again.
    await provider.submit(run, placement);
    await new Promise((r) => setTimeout(r, 500));
    expect((await provider.logs(run, 0)).map((l) => l.line)).toEqual(['once']);
    await provider.release(run);
    expect((await provider.observe(run)).phase).toBe('lost');
  });
});
