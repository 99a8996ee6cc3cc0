import { randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { RunView } from '@wrs/domain';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, containerEngineMissing, describeNeeding, eventually } from '@wrs/testing';
import { ContainerProvider } from './container.provider';
import { containerRunOf } from './container-runs.testing';
import { containerEngine } from './container/engine';
import { LABEL_OWNER, LABEL_RUN } from './container/identity';

/** Waits (bounded, times the patience knob) until `condition` holds. */
const until = (condition: () => boolean, ms: number, what: string) =>
  eventually(() => Promise.resolve(condition() ? true : undefined), ms, what);

const placement = { provider: 'container', region: 'local', reason: 'test', candidates: [] };

describeNeeding(containerEngineMissing())("ContainerProvider's watch (a real engine)", () => {
  const engine = containerEngine(CONTAINER_SOCKET);
  const eventStreams = jest.spyOn(engine, 'getEvents');
  const provider = new ContainerProvider(engine, 'container', `wrs-watch-${randomBytes(4).toString('hex')}`);
  const runs: RunView[] = [];
  const strangers: string[] = [];

  /** Watches until the engine answered the events stream; returns the ids told, in order. */
  async function watched(): Promise<{ told: string[]; stop: () => void; stream: Readable }> {
    const told: string[] = [];
    const calls = eventStreams.mock.results.length;
    const stop = provider.watch((runId) => told.push(runId));
    const stream = (await eventStreams.mock.results[calls]!.value) as Readable;
    return { told, stop, stream };
  }

  const toldOf = (told: string[], run: RunView) => told.filter((id) => id === run.runId).length;

  afterAll(async () => {
    await Promise.all(runs.map((run) => provider.release(run)));
    await Promise.all(strangers.map((id) => engine.getContainer(id).remove({ force: true })));
    eventStreams.mockRestore();
  });

  it("tells of its run's container starting and exiting, of nothing of a container without its owner's label, and stops", async () => {
    const { told, stop, stream } = await watched();
    // Another installation's run container, on the same engine, started first.
    const stranger = await engine.createContainer({
      Image: CONTAINER_IMAGE,
      Entrypoint: ['/bin/sh', '-c', 'sleep 30'],
      Labels: { [LABEL_RUN]: randomUUID(), [LABEL_OWNER]: 'another-installation' },
      HostConfig: { NetworkMode: 'none' },
    });
    strangers.push(stranger.id);
    await stranger.start();
    const run = containerRunOf(CONTAINER_IMAGE, 'sleep 30');
    runs.push(run);
    await provider.submit(run, placement);
    await until(() => toldOf(told, run) >= 1, 20_000, 'the start told');
    const afterStart = told.length;
    // The engine sends its events in order: the stranger's start came before the run's.
    expect(told).toEqual(Array.from({ length: afterStart }, () => run.runId));

    await engine.getContainer(`wrs-${run.runId}`).kill();
    await until(() => told.length > afterStart, 20_000, 'the exit told');
    expect((await provider.observe(run)).phase).toBe('exited');
    expect(told.every((id) => id === run.runId)).toBe(true);

    stop();
    await until(() => stream.destroyed, 5_000, 'the events stream closed');
  });

  it("tells of the lines its run's log stream brings, while no engine event comes", async () => {
    const { told, stop } = await watched();
    try {
      const run = containerRunOf(CONTAINER_IMAGE, 'echo one; sleep 1; echo two; sleep 30');
      runs.push(run);
      await provider.submit(run, placement);
      await until(() => toldOf(told, run) >= 1, 20_000, 'the start told');
      const afterStart = told.length;
      // The first read opens the run's follow stream: its lines, not an event (the container sleeps), are told from now on.
      await provider.logs(run, 0);
      await until(() => told.length > afterStart, 20_000, 'the lines told');
      const lines = await eventually(
        async () => {
          // As the reconciler reads: an observe, then the lines that came while the container ran.
          expect((await provider.observe(run)).phase).toBe('running');
          const read = await provider.logs(run, 0);
          return read.length === 2 ? read : undefined;
        },
        20_000,
        'both lines',
      );
      expect(lines.map((l) => l.line)).toEqual(['one', 'two']);
      expect(told.slice(afterStart).every((id) => id === run.runId)).toBe(true);
    } finally {
      stop();
    }
  });
});
