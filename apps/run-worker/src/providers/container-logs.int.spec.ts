import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { RunView } from '@wrs/domain';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, containerEngineMissing, describeNeeding, patience } from '@wrs/testing';
import { ContainerProvider } from './container.provider';
import { containerRunOf, exitCodeOf } from './container-runs.testing';
import { containerEngine } from './container/engine';
import { demultiplexLogs, LogDemultiplexer } from './container/log-frames';
import type { LogLine } from './provider';

const IMAGE = CONTAINER_IMAGE;
const OWNER = 'wrs-logs-test';
const placement = { provider: 'container', region: 'local', reason: 'test', candidates: [] };

/**
 * Reads a run's log as the reconciler does: observe, then the lines from the count recorded so far,
 * until an observe says exited (and the read after it), or `enough` says so. `recorded`: lines an
 * earlier worker recorded. Returns every line, and how many reads (and lines) there were while the container ran.
 */
async function recordAsTheReconciler(
  provider: ContainerProvider,
  run: RunView,
  options: { recorded?: readonly LogLine[]; enough?: (lines: LogLine[]) => boolean } = {},
) {
  const lines: LogLine[] = [...(options.recorded ?? [])];
  let runningReads = 0;
  let whileRunning = 0;
  const until = Date.now() + patience(60_000);
  for (;;) {
    // Podman answers 500 to an inspect of a container that exits meanwhile: the reconciler looks again.
    const seen = await provider.observe(run).catch((error: Error) => ({ phase: 'refused' as const, error }));
    if (seen.phase === 'running' || seen.phase === 'exited') {
      const read = await provider.logs(run, lines.length);
      lines.push(...read);
      if (seen.phase === 'running') {
        runningReads++;
        whileRunning += read.length;
      }
    }
    if (seen.phase === 'exited' || options.enough?.(lines)) {
      return { lines, runningReads, whileRunning, exited: seen.phase === 'exited' };
    }
    if (Date.now() > until) {
      throw new Error(`the run did not exit: ${JSON.stringify(seen)}, ${lines.length} lines`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const textOf = (lines: readonly LogLine[]) => lines.map((l) => l.line);

describeNeeding(containerEngineMissing())("ContainerProvider's logs, followed on a real engine", () => {
  const engine = containerEngine(CONTAINER_SOCKET);
  const containerPrototype = Object.getPrototypeOf(engine.getContainer('any')) as Docker.Container;
  // Calls through to the engine: only counted.
  const logCalls = jest.spyOn(containerPrototype, 'logs');
  const runs: RunView[] = [];

  // Every request to the engine, counted (the log's head is read by a request of its own, not through logs()).
  const modemPrototype = Object.getPrototypeOf(engine.modem) as { dial(options: object, callback: unknown): void };
  const dials = jest.spyOn(modemPrototype, 'dial');

  /** The engine's logs endpoint requests made for the run's container through `through` (an engine object): their options. */
  function logReads(run: RunView, through: Docker = engine): { follow?: boolean }[] {
    return dials.mock.calls.flatMap(([options], i) => {
      const { path, options: query } = options as { path?: string; options?: { follow?: boolean } };
      return path === `/containers/wrs-${run.runId}/logs?` && dials.mock.contexts[i] === through.modem
        ? [{ follow: query?.follow === true }]
        : [];
    });
  }

  /** The stream of the run's one follow through `through`. */
  async function followStream(run: RunView, through: Docker = engine): Promise<Readable> {
    const index = logCalls.mock.calls.findIndex(
      (args, i) =>
        (args[0] as { follow?: boolean }).follow === true &&
        (logCalls.mock.contexts[i] as Docker.Container & { modem: unknown }).id === `wrs-${run.runId}` &&
        (logCalls.mock.contexts[i] as { modem: unknown }).modem === through.modem,
    );
    expect(index).toBeGreaterThanOrEqual(0);
    return (await logCalls.mock.results[index]!.value) as Readable;
  }

  /** The log as the engine gives it in one read, split as the provider did before it followed logs. */
  async function readWhole(run: RunView): Promise<string[]> {
    return textOf(demultiplexLogs(await engine.getContainer(`wrs-${run.runId}`).logs({ stdout: true, stderr: true, follow: false })));
  }

  function submitted(command: string): RunView {
    const run = containerRunOf(IMAGE, command);
    runs.push(run);
    return run;
  }

  afterAll(async () => {
    await Promise.all(runs.map((run) => new ContainerProvider(engine, 'container', OWNER).release(run)));
    logCalls.mockRestore();
    dials.mockRestore();
  });

  it('many reads of a container printing over time give its lines in order, from one follow of its log and one read after the exit', async () => {
    const provider = new ContainerProvider(engine, 'container', OWNER);
    const run = submitted('for i in $(seq 1 40); do echo "line $i"; sleep 0.1; done');
    await provider.submit(run, placement);
    const { lines, runningReads, whileRunning } = await recordAsTheReconciler(provider, run);
    expect(textOf(lines)).toEqual(Array.from({ length: 40 }, (_, i) => `line ${i + 1}`));
    // 4 s of output: even a busy machine's reads (each an inspect) come many times meanwhile.
    expect(runningReads).toBeGreaterThan(5);
    expect(whileRunning).toBeGreaterThan(0);
    expect(logReads(run)).toEqual([expect.objectContaining({ follow: true }), expect.objectContaining({ follow: false })]);
    await provider.release(run);
  });

  it('a workload that writes more lines than a run records, at its exit: the first 1,000, exactly as the whole read has them', async () => {
    // Written at the exit, where Podman 4.3 cuts short or garbles a follow that lags behind.
    const run = submitted(
      'sleep 3; i=0; while [ $i -lt 600 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done; printf last-out; printf last-err >&2',
    );
    // Two workers' providers: one reads as the reconciler does; one opens its follow at once and reads only after the exit.
    const recording = containerEngine(CONTAINER_SOCKET);
    const waiting = containerEngine(CONTAINER_SOCKET);
    const recorder = new ContainerProvider(recording, 'container', OWNER);
    const waiter = new ContainerProvider(waiting, 'container', OWNER);
    await recorder.submit(run, placement);
    await waiter.logs(run, 0);
    const { lines } = await recordAsTheReconciler(recorder, run);
    expect(await exitCodeOf(waiter, run)).toBe(0);
    const waited = await waiter.logs(run, 0);

    const whole = await readWhole(run);
    expect(whole).toHaveLength(1_202);
    expect(textOf(lines)).toEqual(whole.slice(0, 1_000));
    expect(textOf(waited)).toEqual(whole.slice(0, 1_000));
    const inOrder = (stream: string, prefix: string) => {
      const seen = lines.filter((l) => l.stream === stream).map((l) => l.line);
      expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => `${prefix} ${i}`));
    };
    inOrder('stdout', 'out');
    inOrder('stderr', 'err');
    // One follow, and at most one read of the whole log (none when the follow brought the 1,000 while it ran).
    expect(logReads(run, recording)[0]).toEqual(expect.objectContaining({ follow: true }));
    expect(logReads(run, recording).filter((read) => read.follow === false).length).toBeLessThanOrEqual(1);
    expect(logReads(run, waiting)).toEqual([expect.objectContaining({ follow: true }), expect.objectContaining({ follow: false })]);

    // Past the lines a run records, nothing is read.
    const reads = logReads(run, recording).length;
    expect(await recorder.logs(run, 1_000)).toEqual([]);
    expect(logReads(run, recording)).toHaveLength(reads);
    await recorder.release(run);
    await waiter.release(run);
  });

  it("an exited container's log of 20 MB: its first 1,000 lines, read without reading the rest", async () => {
    const run = submitted(`yes '${'x'.repeat(99)}' | head -n 200000 | nl -ba`);
    const provider = new ContainerProvider(engine, 'container', OWNER);
    await provider.submit(run, placement);
    expect(await exitCodeOf(provider, run)).toBe(0);
    // A worker that finds it exited (none followed it): the head of the log only, counted as it comes.
    const pushed = jest.spyOn(LogDemultiplexer.prototype, 'push');
    try {
      const reader = new ContainerProvider(engine, 'container', OWNER);
      const lines = await reader.logs(run, 0);
      expect(lines).toHaveLength(1_000);
      expect(lines.map((l) => l.line.trim().split('\t')[0])).toEqual(Array.from({ length: 1_000 }, (_, i) => String(i + 1)));
      const bytesRead = pushed.mock.calls.reduce((sum, [chunk]) => sum + chunk.length, 0);
      expect(bytesRead).toBeLessThan(2_000_000); // of about 21 MB
      await reader.release(run);
    } finally {
      pushed.mockRestore();
    }
  });

  it('a workload silent for longer than an engine call may take is read as no lines yet, not as an engine that does not answer', async () => {
    // Podman answers a follow only at the container's first byte; the engine call bound is 10 s.
    const provider = new ContainerProvider(engine, 'container', OWNER);
    const run = submitted('sleep 11; echo done');
    await provider.submit(run, placement);
    expect((await provider.observe(run)).phase).toBe('running');
    expect(await provider.logs(run, 0)).toEqual([]);
    const { lines } = await recordAsTheReconciler(provider, run);
    expect(textOf(lines)).toEqual(['done']);
    await provider.release(run);
  });

  it('after a worker restart, a read from the middle gives the rest, while the container runs and once it exited', async () => {
    const run = submitted('for i in $(seq 1 60); do echo "line $i"; sleep 0.03; done');
    const expected = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
    const before = new ContainerProvider(engine, 'container', OWNER);
    await before.submit(run, placement);
    const first = await recordAsTheReconciler(before, run, { enough: (lines) => lines.length >= 15 });
    expect(first.exited).toBe(false);

    // The worker restarts: a new provider (its own engine object, to count its calls) goes on from the count recorded.
    const restarted = containerEngine(CONTAINER_SOCKET);
    const after = new ContainerProvider(restarted, 'container', OWNER);
    const { lines, whileRunning } = await recordAsTheReconciler(after, run, { recorded: first.lines });
    expect(textOf(lines)).toEqual(expected);
    expect(whileRunning).toBeGreaterThan(0);
    expect(logReads(run, restarted)).toEqual([expect.objectContaining({ follow: true }), expect.objectContaining({ follow: false })]);

    const later = containerEngine(CONTAINER_SOCKET);
    const reader = new ContainerProvider(later, 'container', OWNER);
    expect(textOf(await reader.logs(run, 37))).toEqual(expected.slice(37));
    // Exited already: no follow, the log read whole once.
    expect(logReads(run, later)).toEqual([expect.objectContaining({ follow: false })]);
    await Promise.all([before, after, reader].map((provider) => provider.release(run)));
  });

  it.each(['release', 'cancel'] as const)('%s closes the run container’s follow stream', async (end) => {
    const provider = new ContainerProvider(engine, 'container', OWNER);
    const run = submitted('echo started; sleep 60');
    await provider.submit(run, placement);
    const { lines } = await recordAsTheReconciler(provider, run, { enough: (seen) => seen.length > 0 });
    expect(textOf(lines)).toEqual(['started']);
    const stream = await followStream(run);
    expect(stream.destroyed).toBe(false);
    await provider[end](run);
    expect(stream.destroyed).toBe(true);
    expect((await provider.observe(run)).phase).toBe('lost');
  });
});
