import type { RunView } from '@wrs/domain';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, containerEngineMissing, describeNeeding } from '@wrs/testing';
import { ContainerProvider } from './container.provider';
import { containerRunOf, exitCodeOf } from './container-runs.testing';
import { containerEngine } from './container/engine';
import { DEFAULT_PULL } from './container/image-pull';

const SOCKET = CONTAINER_SOCKET;
const IMAGE = CONTAINER_IMAGE;

describeNeeding(containerEngineMissing())('ContainerProvider against a real engine', () => {
  const engine = containerEngine(SOCKET);
  const provider = new ContainerProvider(engine);
  const placement = { provider: 'container', region: 'local', reason: 'test', candidates: [] };

  it('submitting again for the same run re-attaches: a finished workload never runs twice', async () => {
    const run = containerRunOf(IMAGE, 'echo once');
    await provider.submit(run, placement);
    expect(await exitCodeOf(provider, run)).toBe(0);
    // A stale view of the run (still queued) leads the worker to dispatch it again.
    await provider.submit(run, placement);
    await new Promise((r) => setTimeout(r, 500));
    expect((await provider.logs(run, 0)).map((l) => l.line)).toEqual(['once']);
    await provider.release(run);
    expect((await provider.observe(run)).phase).toBe('lost');
  });

  it('eight workers submitting one run at once make one container, and the workload runs once', async () => {
    // Podman holds the name while the first create makes the container's storage: the others get 500
    // "already in use" and inspect answers 404 for a moment. Three runs, to meet that window.
    for (let round = 0; round < 3; round++) {
      const run = containerRunOf(IMAGE, 'echo once');
      await Promise.all(Array.from({ length: 8 }, () => provider.submit(run, placement)));
      expect(await exitCodeOf(provider, run)).toBe(0);
      expect((await provider.logs(run, 0)).map((l) => l.line)).toEqual(['once']);
      expect((await provider.listHeld()).filter((h) => h.runId === run.runId)).toHaveLength(1);
      await provider.release(run);
    }
  });

  it('starts the container it made by its id: a later container of the run under the same name is not its to start', async () => {
    const run = containerRunOf(IMAGE, 'echo twice');
    // Between this submit's answer and its start: a cancel removes its container, and another worker's
    // submit (the run no longer wants it) makes a new one of the same name and leaves it unstarted.
    const meanwhile = async () => {
      await provider.cancel(run);
      await provider.submit(run, placement, null, () => Promise.resolve(false));
      return true;
    };
    await expect(provider.submit(run, placement, null, meanwhile)).rejects.toThrow('the container was removed before it started');
    const later = await engine.getContainer(`wrs-${run.runId}`).inspect();
    expect(later.State.Status).toBe('created');
    await provider.release(run);
  });

  it('a submit whose run no longer wants the container it made leaves it unstarted', async () => {
    const run = containerRunOf(IMAGE, 'echo never');
    await provider.submit(run, placement, null, () => Promise.resolve(false));
    expect(await provider.observe(run)).toEqual({ phase: 'pending' });
    await provider.cancel(run);
    expect((await provider.observe(run)).phase).toBe('lost');
  });

  /** Makes the run's container as a worker that died before starting it would have left it. */
  async function madeNotStarted(run: RunView, command: string): Promise<void> {
    const labels = { 'io.workload-run-service.run': run.runId, 'io.workload-run-service.owner': 'wrs' };
    const body = { Image: IMAGE, Entrypoint: ['/bin/sh', '-c', command], Labels: labels, HostConfig: { NetworkMode: 'none' } };
    await engine.createContainer({ _query: { name: `wrs-${run.runId}` }, _body: body } as never);
  }

  it('a container made but never started (its worker died in between) is started by the next submit after the grace', async () => {
    const run = containerRunOf(IMAGE, 'echo started-late');
    await madeNotStarted(run, 'echo started-late');
    expect((await provider.observe(run)).phase).toBe('pending');
    await new ContainerProvider(engine, 'container', 'wrs', DEFAULT_PULL, 300).submit(run, placement);
    expect(await exitCodeOf(provider, run)).toBe(0);
    expect((await provider.logs(run, 0)).map((l) => l.line)).toEqual(['started-late']);
    await provider.release(run);
  });

  it('a submit that saw the container unstarted, while its maker ran it to the end, does not run it again', async () => {
    const run = containerRunOf(IMAGE, 'echo once');
    // A second worker whose process stalls 1.5 s after each inspect answers (GC, a busy event loop).
    const stalling = new Proxy(engine, {
      get(target, prop) {
        if (prop !== 'getContainer') {
          return Reflect.get(target, prop) as unknown;
        }
        return (id: string) => {
          const container = target.getContainer(id);
          const inspect = container.inspect.bind(container);
          const slowly = async (options?: object) => {
            const seen = await inspect(options ?? {});
            await new Promise((r) => setTimeout(r, 1500));
            return seen;
          };
          return Object.assign(container, { inspect: slowly });
        };
      },
    });
    await madeNotStarted(run, 'echo once');
    const second = new ContainerProvider(stalling, 'container', 'wrs', DEFAULT_PULL, 300).submit(run, placement);
    await new Promise((r) => setTimeout(r, 200)); // its inspect has answered "created"
    await engine.getContainer(`wrs-${run.runId}`).start(); // its maker starts it; it exits at once
    expect(await exitCodeOf(provider, run)).toBe(0);
    await second;
    expect((await provider.logs(run, 0)).map((l) => l.line)).toEqual(['once']);
    await provider.release(run);
  });

  it("applies the workload's resources as the container's limits", async () => {
    const cg = '/sys/fs/cgroup';
    const show =
      `if [ -f ${cg}/memory.max ]; then cat ${cg}/memory.max ${cg}/cpu.max; ` +
      `else cat ${cg}/memory/memory.limit_in_bytes; echo "$(cat ${cg}/cpu/cpu.cfs_quota_us) $(cat ${cg}/cpu/cpu.cfs_period_us)"; fi`;
    const run = containerRunOf(IMAGE, show, { cpu: '500m', memory: '256Mi' });
    await provider.submit(run, placement);
    expect(await exitCodeOf(provider, run)).toBe(0);
    const lines = (await provider.logs(run, 0)).map((l) => l.line);
    await provider.release(run);
    // Memory in bytes; CPU as "<quota> <period>" (cgroup v2 cpu.max, or v1's two files): half a core.
    expect(lines[0]).toBe(String(256 * 1024 * 1024));
    const [quota, period] = (lines[1] ?? '').split(' ').map(Number);
    expect(quota! / period!).toBeCloseTo(0.5);
  });
});
