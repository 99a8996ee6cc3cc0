import type { RunView } from '@wrs/domain';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, containerEngineMissing, describeNeeding } from '@wrs/testing';
import { ContainerProvider } from './container.provider';
import { containerLimitsOf, hostMaximumMemory } from './container-limits';
import { containerRunOf, exitCodeOf } from './container-runs.testing';
import { containerEngine } from './container/engine';
import { DEFAULT_PULL } from './container/image-pull';
import { ProviderError } from './provider';

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

  /** The container's own view of its bounds: memory bytes, CPU as "<quota> <period>", pids, and NoNewPrivs. */
  const cg = '/sys/fs/cgroup';
  const showBounds =
    `if [ -f ${cg}/memory.max ]; then cat ${cg}/memory.max ${cg}/cpu.max ${cg}/pids.max; ` +
    `else cat ${cg}/memory/memory.limit_in_bytes; echo "$(cat ${cg}/cpu/cpu.cfs_quota_us) $(cat ${cg}/cpu/cpu.cfs_period_us)"; ` +
    `cat ${cg}/pids/pids.max; fi; grep NoNewPrivs /proc/self/status`;

  /** Runs `run` to its end and returns its lines and the engine's HostConfig of its container. */
  async function boundsOf(submitter: ContainerProvider, run: RunView) {
    await submitter.submit(run, placement);
    expect(await exitCodeOf(submitter, run)).toBe(0);
    const lines = (await submitter.logs(run, 0)).map((l) => l.line);
    const { HostConfig } = await engine.getContainer(`wrs-${run.runId}`).inspect();
    await submitter.release(run);
    const [quota, period] = (lines[1] ?? '').split(' ').map(Number);
    return { memory: lines[0], cores: quota! / period!, pids: lines[2], noNewPrivs: lines[3], hostConfig: HostConfig };
  }

  it("applies the workload's resources as the container's limits", async () => {
    const seen = await boundsOf(provider, containerRunOf(IMAGE, showBounds, { cpu: '500m', memory: '256Mi' }));
    expect(seen.memory).toBe(String(256 * 1024 * 1024));
    expect(seen.cores).toBeCloseTo(0.5);
    expect(seen.pids).toBe('4096');
    expect(seen.hostConfig).toMatchObject({ Memory: 256 * 1024 * 1024, NanoCpus: 500_000_000, PidsLimit: 4096 });
  });

  it('bounds a run that gives no resources by the defaults, with a pids limit and no new privileges', async () => {
    const seen = await boundsOf(provider, containerRunOf(IMAGE, showBounds));
    expect(seen.memory).toBe(String(1024 ** 3));
    expect(seen.cores).toBeCloseTo(1);
    expect(seen.pids).toBe('4096');
    expect(seen.noNewPrivs).toMatch(/^NoNewPrivs:\s+1$/);
    expect(seen.hostConfig).toMatchObject({ Memory: 1024 ** 3, PidsLimit: 4096, SecurityOpt: ['no-new-privileges'] });
  });

  it("bounds a run by its offer's defaults and pids limit", async () => {
    const limits = containerLimitsOf({ provider: 'container', regions: ['local'], priority: 0, defaultMemory: '64Mi', pidsLimit: 64 });
    const seen = await boundsOf(
      new ContainerProvider(engine, 'container', 'wrs', { ...DEFAULT_PULL, limits }),
      containerRunOf(IMAGE, showBounds),
    );
    expect(seen.memory).toBe(String(64 * 1024 * 1024));
    expect(seen.pids).toBe('64');
    expect(seen.hostConfig).toMatchObject({ Memory: 64 * 1024 * 1024, PidsLimit: 64 });
  });

  it("kills a run that keeps taking memory at its offer's default limit, not at the host's end", async () => {
    const limits = containerLimitsOf({ provider: 'container', regions: ['local'], priority: 0, defaultMemory: '32Mi' });
    const bounded = new ContainerProvider(engine, 'container', 'wrs', { ...DEFAULT_PULL, limits });
    // The review's `tail /dev/zero` (tail holds a line that never ends), capped at 128 MiB: without a limit this test must not eat the host.
    const run = containerRunOf(IMAGE, 'head -c 134217728 /dev/zero | tail');
    await bounded.submit(run, placement);
    // SIGKILL from the OOM killer in the container's cgroup (Podman 4.3 leaves State.OOMKilled false).
    expect(await exitCodeOf(bounded, run)).toBe(137);
    await bounded.release(run);
  });

  it('refuses a run asking above the maximum before it pulls or makes anything', async () => {
    const limits = containerLimitsOf({ provider: 'container', regions: ['local'], priority: 0, maxMemory: '512Mi' });
    const bounded = new ContainerProvider(engine, 'container', 'wrs', { policy: 'Always', timeoutMs: 1, limits });
    const run = containerRunOf(IMAGE, 'echo never', { memory: '1Gi' });
    const refused = bounded.submit(run, placement);
    await expect(refused).rejects.toThrow(ProviderError);
    await expect(refused).rejects.toThrow('the workload asks for 1Gi of memory; this provider allows at most 512Mi');
    expect((await bounded.observe(run)).phase).toBe('lost');
  });

  it("without a maximum set, a run may ask at most three quarters of the engine host's memory", async () => {
    const { MemTotal } = (await engine.info()) as { MemTotal: number };
    const unbounded = new ContainerProvider(engine, 'container', 'wrs', { policy: 'Always', timeoutMs: 1 });
    const run = containerRunOf(IMAGE, 'echo never', { memory: '999999Gi' });
    await expect(unbounded.submit(run, placement)).rejects.toThrow(
      `the workload asks for 999999Gi of memory; this provider allows at most ${hostMaximumMemory(MemTotal)}`,
    );
    expect((await unbounded.observe(run)).phase).toBe('lost');
  });
});
